"""The no-neural-network reference: TF-IDF (or word features) + a linear model.

It tells a reader what pretraining must beat. On the same splits and with
the same metrics as finetuning (`finetuning.scoring`, in percent):

* classification: TF-IDF of word 1-2 grams (a pair's texts joined with a
  marker) and logistic regression;
* regression: the same features and ridge regression;
* tagging: per-word logistic regression on the word, its affixes and shape
  and its neighbours, read as spans (chunk F1) like the finetuned tagger.

The regularisation strength is picked on dev from a fixed grid; the
reported scores are those of `headline_split`. Needs scikit-learn (the
`study` extra); QA tasks have no such reference.
"""

import numpy as np

from electra_tf import errors
from electra_tf.finetuning import scoring
from electra_tf.finetuning import tasks as tasks_lib
from electra_tf.finetuning.classification import task as sentence_tasks
from electra_tf.finetuning.tagging import task as tagging_tasks

PERCENT = 100.0
PAIR_MARKER = " ||| "
C_GRID = (0.1, 1.0, 10.0)
ALPHA_GRID = (0.1, 1.0, 10.0)
SEED = 0


def _sklearn():
  try:
    from sklearn import feature_extraction, linear_model  # pylint: disable=g-import-not-at-top
  except ImportError:
    raise errors.ConfigError(
        "the tfidf reference needs scikit-learn: pip install "
        "'electra-tf[study]' (or drop \"tfidf\" from the study's "
        "references)") from None
  return feature_extraction, linear_model


def check_available():
  """`ConfigError` now, not after hours, if scikit-learn is missing."""
  _sklearn()


def _texts(examples):
  return [e.text_a if e.text_b is None else e.text_a + PAIR_MARKER + e.text_b
          for e in examples]


def _word_features(words, index):
  word = words[index]
  return {
      "w=" + word.lower(): 1.0, "p3=" + word[:3].lower(): 1.0,
      "s3=" + word[-3:].lower(): 1.0, "title": float(word.istitle()),
      "upper": float(word.isupper()), "digit": float(any(
          c.isdigit() for c in word)), "at": float(word.startswith("@")),
      "hash": float(word.startswith("#")), "first": float(index == 0),
      "prev=" + (words[index - 1].lower() if index else "<s>"): 1.0,
      "next=" + (words[index + 1].lower() if index + 1 < len(words)
                 else "</s>"): 1.0,
  }


def _class_ids(task, examples):
  return [task.labels.index(e.label) for e in examples]


def _targets(examples):
  return [e.label for e in examples]


def _sentence_scores(task, fitted, features, examples, gold):
  predictions = fitted.predict(features)
  return {name: PERCENT * value for name, value in scoring.sentence_scores(
      task.metric_names, predictions, np.array(gold(examples))).items()}


def _sentence_reference(task, splits, headline, models, gold):
  """TF-IDF features; the `models` candidate picked on dev; `gold` labels."""
  feature_extraction, _ = _sklearn()
  vectorizer = feature_extraction.text.TfidfVectorizer(
      ngram_range=(1, 2), min_df=2, sublinear_tf=True)
  train = vectorizer.fit_transform(_texts(splits[tasks_lib.TRAIN]))
  targets = gold(splits[tasks_lib.TRAIN])
  scored = []
  for model in models:
    model.fit(train, targets)
    dev = _sentence_scores(task, model, vectorizer.transform(
        _texts(splits[tasks_lib.DEV])), splits[tasks_lib.DEV], gold)
    scored.append((dev[task.metric_names[0]], model))
  best = max(scored, key=lambda pair: pair[0])[1]
  return _sentence_scores(task, best, vectorizer.transform(
      _texts(splits[headline])), splits[headline], gold)


def _classification_reference(task, splits, headline):
  _, linear_model = _sklearn()
  models = [linear_model.LogisticRegression(C=c, max_iter=2000,
                                            random_state=SEED)
            for c in C_GRID]
  return _sentence_reference(task, splits, headline, models,
                             lambda examples: _class_ids(task, examples))


def _regression_reference(task, splits, headline):
  _, linear_model = _sklearn()
  models = [linear_model.Ridge(alpha=a) for a in ALPHA_GRID]
  return _sentence_reference(task, splits, headline, models, _targets)


def _tagging_reference(task, splits, headline):
  feature_extraction, linear_model = _sklearn()
  vectorizer = feature_extraction.DictVectorizer()

  def word_rows(examples):
    return [_word_features(e.words, i) for e in examples
            for i in range(len(e.words))]

  train = vectorizer.fit_transform(word_rows(splits[tasks_lib.TRAIN]))
  targets = [t for e in splits[tasks_lib.TRAIN] for t in e.tags]

  def scores(model, examples):
    predicted = model.predict(vectorizer.transform(word_rows(examples)))
    sentences, start = [], 0
    for example in examples:
      sentences.append(list(predicted[start:start + len(example.words)]))
      start += len(example.words)
    result = scoring.chunk_f1(sentences, [list(e.tags) for e in examples])
    return {name: PERCENT * result[name] for name in task.metric_names}

  scored = []
  for c in C_GRID:
    model = linear_model.LogisticRegression(C=c, max_iter=2000,
                                            random_state=SEED)
    model.fit(train, targets)
    scored.append((scores(model, splits[tasks_lib.DEV])[
        task.metric_names[0]], model))
  best = max(scored, key=lambda pair: pair[0])[1]
  return scores(best, splits[headline])


# Task family -> its reference; a family without one (QA) has none.
_REFERENCES = {
    sentence_tasks.ClassificationTask: _classification_reference,
    sentence_tasks.RegressionTask: _regression_reference,
    tagging_tasks.TaggingTask: _tagging_reference,
}


def _reference_of(task):
  return next((_REFERENCES[family] for family in type(task).__mro__
               if family in _REFERENCES), None)


def supports(task):
  return _reference_of(task) is not None


def reference_scores(task, data_root, headline_split):
  """{metric: percent} of the reference on `headline_split` of `task`."""
  splits = {split: task.read_examples(data_root, split).examples
            for split in {tasks_lib.TRAIN, tasks_lib.DEV, headline_split}}
  return _reference_of(task)(task, splits, headline_split)
