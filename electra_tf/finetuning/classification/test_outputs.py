"""Test-set predictions of own-data sentence tasks, in files people can read.

A TSV with a header, one row per example in file order: `index`,
`prediction` (the label string, or the score), `gold` (when the split has
labels), then the text(s). Fields holding tabs, quotes or newlines are
quoted, as CSV readers expect.
"""

import csv
import io

from electra_tf.finetuning import prediction_files
from electra_tf.finetuning.classification import submission


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


def write(path, task, examples, outputs, labeled):
  """Writes one split's predictions to `path`; returns the path."""
  header, rows = sentence_rows(task, examples, outputs, labeled)
  buffer = io.StringIO()
  writer = csv.writer(buffer, delimiter="\t", lineterminator="\n")
  writer.writerow(header)
  writer.writerows(rows)
  return prediction_files.write_text(path, buffer.getvalue())
