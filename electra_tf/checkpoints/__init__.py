"""Checkpoints and what a run dir records beside them: the original TF1
variable names and layout (loading and saving them), this project's
object-based checkpoints (finding one, strict restores with readable errors),
a directory's newest intact checkpoint, and the JSON records and checks that
tie a run dir to one model and one set of settings."""
