"""`electra-study`: objectives pretrained at equal FLOPs, finetuned along the
budget on real tasks, with reference rows, statistics, plots and a report."""
