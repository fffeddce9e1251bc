"""Reading and writing checkpoints with the original TF1 variable names."""
