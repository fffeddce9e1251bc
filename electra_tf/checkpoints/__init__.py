"""Checkpoints: the original TF1 variable names and layout (loading and
saving them), this project's object-based checkpoints (finding one, strict
restores with readable errors), and finding a directory's newest intact one."""
