"""Learnable own-data tasks in the users' formats (CSV, TSV, JSONL, CoNLL).

* sentiment (CSV, quoted fields): "pos" iff the text holds "good".
* paraphrase (JSONL pairs): "same" iff the second text repeats the first.
* chunks (CoNLL: word, POS and BIO chunk tag in tab-separated columns):
  the chunk tags of `synthetic_tasks`.
"""

import csv
import json
import os
import random

from tests.finetuning import synthetic_tasks

SENTIMENT_LABELS = ("neg", "pos")


def sentiment_rows(rng, count):
  rows = []
  for _ in range(count):
    label = rng.randint(0, 1)
    words = rng.sample(synthetic_tasks.FILLER, rng.randint(3, 6))
    words.insert(rng.randint(0, len(words)), "good" if label else "bad")
    rows.append((" ".join(words), SENTIMENT_LABELS[label]))
  return rows


def write_csv(path, header, rows):
  with open(path, "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(header)
    writer.writerows(rows)


def paraphrase_records(rng, count):
  records = []
  for _ in range(count):
    first = rng.sample(synthetic_tasks.FILLER, 4)
    same = rng.random() < 0.5
    second = first if same else rng.sample(synthetic_tasks.OTHER, 4)
    records.append({"premise": " ".join(first), "hypothesis": " ".join(second),
                    "gold": "same" if same else "different"})
  return records


def chunk_lines(rng, count):
  lines = []
  for _ in range(count):
    for entry in synthetic_tasks.chunk_sentence(rng):
      if entry:
        word, pos, tag = entry.split(" ")
        lines.append(f"{word}\t{pos}\t{tag}")
      else:
        lines.append("")
  return lines


def write_tasks(folder, sizes, seed=0):
  """Writes the three tasks' files and spec files; returns the spec paths."""
  rng = random.Random(seed)
  os.makedirs(folder, exist_ok=True)
  for split, count in sizes.items():
    write_csv(os.path.join(folder, f"sentiment_{split}.csv"),
              ["id", "review", "sentiment"],
              [(i, text, label) for i, (text, label) in
               enumerate(sentiment_rows(rng, count))])
    with open(os.path.join(folder, f"paraphrase_{split}.jsonl"), "w") as f:
      for record in paraphrase_records(rng, count):
        f.write(json.dumps(record) + "\n")
    synthetic_tasks.write_lines(os.path.join(folder, f"chunks_{split}.conll"),
                                chunk_lines(rng, count))
  specs = {
      "sentiment": {"files": "sentiment_{split}.csv", "text": "review",
                    "label": "sentiment"},
      "paraphrase": {"files": "paraphrase_{split}.jsonl", "text": "premise",
                     "text_b": "hypothesis", "label": "gold"},
      "chunks": {"family": "tagging", "files": "chunks_{split}.conll"},
  }
  paths = {}
  for name, spec in specs.items():
    paths[name] = os.path.join(folder, f"{name}.json")
    with open(paths[name], "w") as f:
      json.dump(spec, f)
  return paths
