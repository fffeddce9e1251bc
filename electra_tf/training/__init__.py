"""What any training run here needs, whatever it trains: strategies (the only
device-aware code), precision and loss scaling, the optimizer and its
schedule, the replica step after the loss (gradients, all-reduce, clipping,
update), the host loop (chunks, non-finite stop, scalars), progress and ETA,
and run checkpoints. Pretraining and finetuning build their loops on it."""
