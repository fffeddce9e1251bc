"""Learnable synthetic tasks in the real file formats, and a tiny pretrained model.

Layout as the original: `<data_dir>/vocab.txt`,
`<data_dir>/finetuning_data/<task>/{train,dev,test}.<tsv|json|txt>` and a
pretrained model in `<data_dir>/models/<MODEL_NAME>/`.

* sst: the label is 1 iff the sentence holds "good" (else it holds "bad").
* sts: sentence 2 is sentence 1 with k words swapped for words of another
  pool; the score is 5 - k (the word overlap).
* squad (2.0): the answer is the word after "key"; a context with an
  answer word but no "key" is unanswerable.
* newsqa (MRQA JSON Lines): squad's rule, every question answerable, the
  context led by the markup word "[PAR]".
* chunk: tags follow the words (determiner + noun = NP, verb = VP, ...).
"""

import json
import os
import random

import tensorflow as tf

from electra_tf.config import PretrainingConfig
from electra_tf.pretraining import train_loop
from electra_tf.training import checkpointing

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
FILLER = [f"w{i}" for i in range(40)]
OTHER = [f"z{i}" for i in range(10)]
ANSWERS = [f"a{i}" for i in range(10)]
CHUNK_WORDS = {"det": ["the", "a"], "noun": ["cat", "dog", "mat", "car"],
               "verb": ["sat", "ran", "saw"], "prep": ["on", "in"],
               "punct": ["."]}
CHUNKS = [[("det", "B-NP"), ("noun", "I-NP")], [("verb", "B-VP")],
          [("prep", "B-PP")], [("punct", "O")]]
EXTRA = ["good", "bad", "key", "what", "follows", "?"]
VOCAB = (SPECIAL + FILLER + OTHER + ANSWERS + EXTRA +
         sorted({w for words in CHUNK_WORDS.values() for w in words}))
VOCAB_SIZE = 128
MODEL_NAME = "tiny"
UNANSWERABLE_SHARE = 0.4
ENCODER = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2,
           "intermediate_size": 128}
EMBEDDING_SIZE = 32


def task_dir(data_dir, task):
  path = os.path.join(data_dir, "finetuning_data", task)
  os.makedirs(path, exist_ok=True)
  return path


def write_lines(path, lines):
  with open(path, "w") as f:
    f.write("".join(line + "\n" for line in lines))


def sst_rows(rng, count):
  rows = []
  for _ in range(count):
    label = rng.randint(0, 1)
    words = rng.sample(FILLER, rng.randint(3, 6))
    words.insert(rng.randint(0, len(words)), "good" if label else "bad")
    rows.append((" ".join(words), str(label)))
  return rows


def write_sst(data_dir, rng, sizes):
  folder = task_dir(data_dir, "sst")
  for split, count in sizes.items():
    rows = sst_rows(rng, count)
    if split == "test":
      lines = ["index\tsentence"] + [f"{i}\t{s}" for i, (s, _) in
                                      enumerate(rows)]
    else:
      lines = ["sentence\tlabel"] + [f"{s}\t{label}" for s, label in rows]
    write_lines(os.path.join(folder, f"{split}.tsv"), lines)


def sts_pair(rng):
  first = rng.sample(FILLER, 5)
  swapped = rng.randint(0, 5)
  second = list(first)
  for position in rng.sample(range(5), swapped):
    second[position] = rng.choice(OTHER)
  return " ".join(first), " ".join(second), 5.0 - swapped


def write_sts(data_dir, rng, sizes):
  folder = task_dir(data_dir, "sts")
  header = "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\t"
  for split, count in sizes.items():
    lines = [header + "sentence1\tsentence2" + ("" if split == "test"
                                                else "\tscore")]
    for i in range(count):
      a, b, score = sts_pair(rng)
      prefix = f"{i}\tmain-news\tnone\t2017\t{i}\tnone\tnone"
      lines.append(f"{prefix}\t{a}\t{b}" + ("" if split == "test"
                                            else f"\t{score:.3f}"))
    write_lines(os.path.join(folder, f"{split}.tsv"), lines)


def squad_paragraph(rng, index, split, unanswerable_share=UNANSWERABLE_SHARE,
                    markup=()):
  words = list(markup) + rng.sample(FILLER, rng.randint(6, 10))
  qa = {"id": f"{split}-{index}", "question": "what follows key ?"}
  answer = rng.choice(ANSWERS)
  position = rng.randint(len(markup), len(words))
  if rng.random() < unanswerable_share:
    # The answer word alone, without "key": no answer.
    words.insert(position, answer)
    qa.update(answers=[], is_impossible=True)
  else:
    words[position:position] = ["key", answer]
    start = len(" ".join(words[:position + 1])) + 1
    qa.update(answers=[{"text": answer, "answer_start": start}],
              is_impossible=False)
  return {"context": " ".join(words), "qas": [qa]}


def write_squad(data_dir, rng, sizes):
  folder = task_dir(data_dir, "squad")
  for split, count in sizes.items():
    paragraphs = [squad_paragraph(rng, i, split) for i in range(count)]
    with open(os.path.join(folder, f"{split}.json"), "w") as f:
      json.dump({"version": "v2.0", "data": [
          {"title": "synthetic", "paragraphs": paragraphs}]}, f)


def mrqa_paragraph(rng, index, split):
  """An answerable squad paragraph in the MRQA format."""
  paragraph = squad_paragraph(rng, index, split, unanswerable_share=0.0,
                              markup=("[PAR]",))
  qa, = paragraph["qas"]
  answer, = qa["answers"]
  start, text = answer["answer_start"], answer["text"]
  return {"context": paragraph["context"], "qas": [{
      "qid": qa["id"], "question": qa["question"], "answers": [text],
      "detected_answers": [{"text": text,
                            "char_spans": [[start, start + len(text) - 1]]}]
  }]}


def write_newsqa(data_dir, rng, sizes):
  folder = task_dir(data_dir, "newsqa")
  for split, count in sizes.items():
    lines = [json.dumps({"header": {"dataset": "NewsQA", "split": split}})]
    lines += [json.dumps(mrqa_paragraph(rng, i, split)) for i in range(count)]
    write_lines(os.path.join(folder, f"{split}.jsonl"), lines)


def chunk_sentence(rng):
  lines = []
  for _ in range(rng.randint(2, 5)):
    for kind, tag in rng.choice(CHUNKS):
      lines.append(f"{rng.choice(CHUNK_WORDS[kind])} XX {tag}")
  return lines + [""]


def write_chunk(data_dir, rng, sizes):
  folder = task_dir(data_dir, "chunk")
  for split, count in sizes.items():
    lines = [line for _ in range(count) for line in chunk_sentence(rng)]
    write_lines(os.path.join(folder, f"{split}.txt"), lines)


WRITERS = {"sst": write_sst, "sts": write_sts, "squad": write_squad,
           "chunk": write_chunk, "newsqa": write_newsqa}


def write_tasks(data_dir, sizes, seed=0, tasks=tuple(WRITERS)):
  """Writes the raw files of `tasks` with {split: example count}."""
  rng = random.Random(seed)
  os.makedirs(data_dir, exist_ok=True)
  write_lines(os.path.join(data_dir, "vocab.txt"), VOCAB)
  for task in tasks:
    task_sizes = dict(sizes)
    if task == "chunk":
      task_sizes.pop("test", None)
    WRITERS[task](data_dir, rng, task_sizes)


def save_pretrained_model(data_dir):
  """A seeded, untrained ElectraPretrainer saved as a pretraining run saves
  it (`training.checkpointing`), in `<data_dir>/models/<MODEL_NAME>`."""
  config = PretrainingConfig.from_hparams({
      "vocab_size": VOCAB_SIZE, "embedding_size": EMBEDDING_SIZE,
      "model_hparam_overrides": ENCODER, "generator_hidden_size": 0.5})
  model_dir = os.path.join(data_dir, "models", MODEL_NAME)
  checkpointing.check_and_record_config(model_dir, config)
  model, optimizer, _ = train_loop.build_model_and_optimizer(
      config, tf.distribute.get_strategy(), None)
  return checkpointing.RunCheckpoints(model_dir, model, optimizer).save(
      force=True)


def finetune_hparams(**overrides):
  hparams = {"vocab_size": VOCAB_SIZE, "embedding_size": EMBEDDING_SIZE,
             "model_hparam_overrides": ENCODER, "jit_compile": False}
  hparams.update(overrides)
  return hparams
