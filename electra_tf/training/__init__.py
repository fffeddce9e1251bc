"""Running pretraining on devices: strategies (the only device-aware code),
precision and loss scaling, the optimizer and its schedule, the replica train
step, the host loop with its progress, health checks and run checkpoints."""
