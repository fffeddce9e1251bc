"""Replaced-token-detection pretraining: masking, sampling, the generator and
discriminator (`ElectraPretrainer`, pure Keras), losses, metrics, ablations
and health signals; and the pretraining run that trains it under a
tf.distribute strategy (`train_step`, `train_loop`, `health_monitor`)."""
