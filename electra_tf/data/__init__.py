"""Pretraining data: corpus readers, the dataset builder and its TFRecords,
vocab learning from a corpus, the pretraining input pipeline, and the checks
that a run's data and vocab belong together. Tokenizers are in
`electra_tf.tokenization`."""
