"""Finetuning a pretrained discriminator: the task interface and registry,
own-data task specs, featurization and its cache, the finetuning model, loss,
layer-wise learning rates, train loop, runner, scoring and prediction files;
one folder per task family (`classification`, `qa`, `tagging`)."""
