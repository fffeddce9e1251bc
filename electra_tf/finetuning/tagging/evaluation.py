"""Dev metrics of a tagging task: chunk F1, precision, recall in percent."""

from electra_tf.finetuning import scoring
from electra_tf.finetuning.tagging import features

PERCENT = 100.0
CHUNK_METRICS = ("f1", "precision", "recall")


def word_tags(label_ids, labels_mask, label_list):
  """Per-sentence tag lists of [N, L] label ids (the words kept)."""
  return [features.decode_tags(ids, mask, label_list)
          for ids, mask in zip(label_ids, labels_mask)]


def tagging_metrics(outputs, label_list):
  """Chunk F1 (and precision, recall) in percent."""
  mask = outputs[features.LABELS_MASK]
  scores = scoring.chunk_f1(
      word_tags(outputs["predictions"], mask, label_list),
      word_tags(outputs[features.LABELS], mask, label_list))
  return {name: PERCENT * scores[name] for name in CHUNK_METRICS}
