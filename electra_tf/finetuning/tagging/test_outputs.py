"""Test-set predictions of own-data tagging tasks, in files people can read.

CoNLL columns `word<TAB>prediction[<TAB>gold]`, a blank line after each
sentence. Words cut off by `max_seq_length` get the tag `O` and are counted
in the log.
"""

from absl import logging

from electra_tf.finetuning import prediction_files
from electra_tf.finetuning import tasks
from electra_tf.finetuning.tagging import features
from electra_tf.finetuning.tagging import tag_spans


def tagging_lines(examples, outputs, label_list, labeled):
  """CoNLL lines of a tagging task's predictions, and the words cut off."""
  by_eid = {int(eid): (ids, mask) for eid, ids, mask in zip(
      outputs[tasks.EXAMPLE_ID], outputs["predictions"],
      outputs[features.LABELS_MASK])}
  lines, cut = [], 0
  for example in examples:
    ids, mask = by_eid[example.eid]
    predicted = features.decode_tags(ids, mask, label_list)
    cut += len(example.words) - len(predicted)
    predicted += [tag_spans.OUTSIDE] * (len(example.words) - len(predicted))
    for index, word in enumerate(example.words):
      fields = [word, predicted[index]]
      if labeled:
        fields.append(example.tags[index])
      lines.append("\t".join(fields))
    lines.append("")
  return lines, cut


def write(path, task, examples, outputs, labeled, label_list):
  """Writes one split's predictions to `path`; returns the path."""
  lines, cut = tagging_lines(examples, outputs, label_list, labeled)
  if cut:
    logging.warning("%s: %d word(s) past max_seq_length tagged O in %s",
                    task.name, cut, path)
  return prediction_files.write_text(path,
                                     "".join(line + "\n" for line in lines))
