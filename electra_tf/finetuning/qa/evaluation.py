"""QA evaluation: model outputs -> answers, prediction files, scores.

As the original: answers are decoded from each window's outputs, written
to `qa_preds_file` (and the null odds to `qa_na_file` for SQuAD 2.0),
scored with the official scripts' definitions (SQuAD 2.0 with
`qa_na_threshold` on the null odds; MRQA by `mrqa_scoring`) and the scores
written to `qa_eval_file`.
"""

from electra_tf.finetuning import prediction_files
from electra_tf.finetuning import tasks as tasks_lib
from electra_tf.finetuning.qa import squad_postprocessing as post
from electra_tf.finetuning.qa import squad_scoring

JOINT_FIELDS = ("start_top_log_probs", "start_top_index", "end_top_log_probs",
                "end_top_index")


def raw_results(outputs, config):
  """{feature id: `RawResult`} from `evaluation.predict` outputs."""
  fields = ["start_logits", "end_logits"]
  if config.answerable_classifier:
    fields.append("answerable_logit")
  if config.joint_prediction:
    fields += JOINT_FIELDS
  ids = outputs[tasks_lib.EXAMPLE_ID]
  return {int(feature_id): post.RawResult(
      **{field: outputs[field][i] for field in fields})
          for i, feature_id in enumerate(ids)}


def decoding_settings(config, task):
  return post.DecodingSettings(
      v2=task.v2, n_best_size=config.n_best_size,
      max_answer_length=config.max_answer_length,
      joint_prediction=config.joint_prediction,
      answerable_classifier=config.answerable_classifier)


def decode(config, task, examples, tokenizer, settings, outputs):
  """`SquadPredictions` of `examples` from the model outputs."""
  return post.decode_predictions(
      examples, tokenizer, settings, raw_results(outputs, config),
      decoding_settings(config, task))


def span_metrics(config, task, examples, tokenizer, settings, outputs,
                 score):
  """Decodes, writes the prediction files and returns the official scores.

  `score` maps the `SquadPredictions` to {metric: percent}; the scores are
  also written to `qa_eval_file`.
  """
  decoded = decode(config, task, examples, tokenizer, settings, outputs)
  prediction_files.write_json(config.qa_preds_file.format(task.name),
                              decoded.predictions)
  if task.v2:
    prediction_files.write_json(config.qa_na_file.format(task.name),
                                decoded.null_odds)
  scores = score(decoded)
  prediction_files.write_json(config.qa_eval_file.format(task.name), scores)
  return scores


def squad_scorer(config, v2, dataset):
  """`span_metrics`'s `score` for SQuAD `dataset` (the articles of the
  split's file): the official 2.0 scorer with `qa_na_threshold`, or 1.1."""
  if v2:
    return lambda decoded: squad_scoring.evaluate_v2(
        dataset, decoded.predictions, decoded.null_odds,
        na_prob_thresh=config.qa_na_threshold)
  return lambda decoded: squad_scoring.evaluate_v1(dataset,
                                                   decoded.predictions)


def test_answers(config, task, examples, tokenizer, settings, outputs):
  """Answers for a submission: "" where the null odds pass the threshold."""
  decoded = decode(config, task, examples, tokenizer, settings, outputs)
  if not task.v2:
    return decoded.predictions
  return post.apply_null_threshold(decoded.predictions, decoded.null_odds,
                                   config.qa_na_threshold)
