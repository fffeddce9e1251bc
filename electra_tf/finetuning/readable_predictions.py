"""Test-set predictions of own-data tasks, in files people can read.

Sentence tasks: a TSV with a header, one row per example in file order:
`index`, `prediction` (the label string, or the score), `gold` (when the
split has labels), then the text(s). Fields holding tabs, quotes or newlines
are quoted, as CSV readers expect.

Tagging tasks: CoNLL columns `word<TAB>prediction[<TAB>gold]`, a blank line
after each sentence. Words cut off by `max_seq_length` get the tag `O` and
are counted in the log.
"""

import csv
import io
import os

import tensorflow as tf
from absl import logging

from electra_tf.finetuning.tagging import chunking
from electra_tf.finetuning.classification import submission
from electra_tf.finetuning.tagging import tag_spans
from electra_tf.finetuning import tasks as tasks_lib


def sentence_rows(task, examples, outputs, labeled):
  """Header and rows of a sentence task's predictions."""
  predictions = dict(submission.prediction_strings(task, outputs))
  texts = ["text_a", "text_b"] if task.is_pair else ["text"]
  header = ["index", "prediction"] + (["gold"] if labeled else []) + texts
  rows = []
  for example in examples:
    row = [example.eid, predictions[example.eid]]
    if labeled:
      row.append(example.label)
    row += [example.text_a] + ([example.text_b] if task.is_pair else [])
    rows.append(row)
  return header, rows


def tagging_lines(examples, outputs, label_list, labeled):
  """CoNLL lines of a tagging task's predictions, and the words cut off."""
  by_eid = {int(eid): (ids, mask) for eid, ids, mask in zip(
      outputs[tasks_lib.EXAMPLE_ID], outputs["predictions"],
      outputs[chunking.LABELS_MASK])}
  lines, cut = [], 0
  for example in examples:
    ids, mask = by_eid[example.eid]
    predicted = chunking.decode_tags(ids, mask, label_list)
    cut += len(example.words) - len(predicted)
    predicted += [tag_spans.OUTSIDE] * (len(example.words) - len(predicted))
    for index, word in enumerate(example.words):
      fields = [word, predicted[index]]
      if labeled:
        fields.append(example.tags[index])
      lines.append("\t".join(fields))
    lines.append("")
  return lines, cut


def write(path, task, examples, outputs, labeled, label_list=None):
  """Writes one split's predictions to `path` (see the module docstring)."""
  if task.task_type == tasks_lib.TaskType.TAGGING:
    lines, cut = tagging_lines(examples, outputs, label_list, labeled)
    if cut:
      logging.warning("%s: %d word(s) past max_seq_length tagged O in %s",
                      task.name, cut, path)
    text = "".join(line + "\n" for line in lines)
  else:
    header, rows = sentence_rows(task, examples, outputs, labeled)
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="\t", lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    text = buffer.getvalue()
  tf.io.gfile.makedirs(os.path.dirname(path))
  temp = path + ".incomplete"
  with tf.io.gfile.GFile(temp, "w") as f:
    f.write(text)
  tf.io.gfile.rename(temp, path, overwrite=True)
  return path
