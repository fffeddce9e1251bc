"""Pretrain ELECTRA, or evaluate a pretrained one (`electra-pretrain`).

  electra-pretrain --preset electra_small --train_data 'gs://b/data/*' \\
      --model_dir gs://b/models/small --tpu my-tpu --hparams '{"precision":
      "mixed_bfloat16"}'

The original's `--data-dir`, `--model-name` and `--hparams` work unchanged:
data is then read from `<data-dir>/pretrain_tfrecords/`, the vocab from
`<data-dir>/vocab.txt` and the model lives in `<data-dir>/models/<name>`.
"""

from absl import flags
from absl import logging

from electra_tf import config as config_lib
from electra_tf import errors
from electra_tf.cli import common
from electra_tf.data import pretrain_pipeline
from electra_tf.data import special_tokens
from electra_tf.training import distribute
from electra_tf.training import loop
from electra_tf.training import progress

FLAGS = flags.FLAGS
flags.DEFINE_string("preset", None, "A preset name in configs/pretrain/ "
                    f"({', '.join(config_lib.preset_names())}) or a JSON file.")
flags.DEFINE_string("hparams", None, "Original-style hparams: a JSON object "
                    "or a path to a JSON file; applied over --preset.")
flags.DEFINE_string("data_dir", None, "The original's data dir: pretrain_"
                    "tfrecords/, vocab.txt and models/<model_name> inside.")
flags.DEFINE_string("model_name", None, "Run name under <data_dir>/models/.")
flags.DEFINE_string("model_dir", None, "Where checkpoints, config.json and "
                    "TensorBoard logs go (overrides the hparams' model_dir).")
flags.DEFINE_string("train_data", None, "Comma-separated TFRecord globs "
                    "(overrides pretrain_tfrecords).")
flags.DEFINE_string("eval_data", None, "TFRecord globs for --do_eval "
                    "(default: eval_tfrecords, else pretrain_tfrecords).")
flags.DEFINE_enum("mode", None, ["train", "eval", "train_and_eval"],
                  "What to run (default: from do_train/do_eval).")
flags.DEFINE_enum("strategy", "auto", list(distribute.STRATEGIES),
                  "Distribution strategy.")
flags.DEFINE_string("tpu", None, "Cloud TPU name or grpc address "
                    "(overrides tpu_name; implies --strategy tpu).")
flags.DEFINE_string("init_checkpoint", None, "Start from this checkpoint when "
                    "the model dir has none: a released TF1 ELECTRA "
                    "checkpoint (original names) or one of ours.")
flags.DEFINE_float("max_seconds", None, "Stop (after saving) once this much "
                   "time has passed; rerun to continue.")
flags.DEFINE_float("peak_tflops", None, "Peak TFLOP/s of all devices for the "
                   "utilisation figure; measured with a matmul if unset.")


def load_config():
  """The config from --preset, --hparams and the original's dir flags."""
  hparams = {}
  if FLAGS.model_name:
    hparams["model_name"] = FLAGS.model_name
  config = config_lib.load_pretraining_config(FLAGS.preset, FLAGS.hparams,
                                              **hparams)
  if FLAGS.data_dir:
    config = config_lib.PretrainingConfig.from_hparams(
        config.hparams_passed, data_dir=FLAGS.data_dir)
  return config


def vocabulary_ids(config):
  """Special-token ids from the vocab file, checked against vocab_size."""
  if not config.vocab_file:
    logging.warning("no vocab_file: assuming BERT's special-token ids")
    return special_tokens.SpecialTokenIds()
  from electra_tf import tokenization  # pylint: disable=g-import-not-at-top
  vocab = tokenization.load_vocab(config.vocab_file)
  if len(vocab) > config.vocab_size:
    raise errors.ConfigError(
        f"vocab file {config.vocab_file} has {len(vocab)} tokens but "
        f"vocab_size is {config.vocab_size}; set vocab_size")
  return special_tokens.SpecialTokenIds.from_vocab(vocab, config.vocab_file)


def main(argv):
  if len(argv) > 1:
    raise errors.ConfigError(f"unexpected arguments: {' '.join(argv[1:])}")
  config = load_config()
  model_dir = FLAGS.model_dir or config.model_dir
  if not model_dir:
    raise errors.ConfigError("no model dir: give --model_dir or --data_dir")
  mode = FLAGS.mode or ("train_and_eval" if config.do_train and config.do_eval
                        else "eval" if config.do_eval else "train")
  special_ids = vocabulary_ids(config)
  strategy = distribute.build_strategy(
      "tpu" if FLAGS.tpu else FLAGS.strategy, tpu=FLAGS.tpu or config.tpu_name,
      tpu_zone=config.tpu_zone, gcp_project=config.gcp_project)
  logging.info("%d replica(s); model dir %s", strategy.num_replicas_in_sync,
               model_dir)
  if mode in ("train", "train_and_eval"):
    files = pretrain_pipeline.list_shards(
        FLAGS.train_data or _required(config.pretrain_tfrecords, "train data"))
    peak = FLAGS.peak_tflops * 1e12 if FLAGS.peak_tflops else (
        progress.measure_matmul_peak() * strategy.num_replicas_in_sync)
    result = loop.pretrain(config, strategy, model_dir, files, special_ids,
                           init_checkpoint=FLAGS.init_checkpoint,
                           max_seconds=FLAGS.max_seconds, peak_flops=peak)
    logging.info("step %d; checkpoint %s", result.step, result.checkpoint)
    if result.stopped_early:
      return
  if mode in ("eval", "train_and_eval"):
    files = pretrain_pipeline.list_shards(
        FLAGS.eval_data or config.eval_tfrecords
        or _required(config.pretrain_tfrecords, "eval data"))
    loop.evaluate(config, strategy, model_dir, files, special_ids,
                  init_checkpoint=FLAGS.init_checkpoint)


def _required(value, what):
  if not value:
    raise errors.ConfigError(f"no {what}: give --train_data/--eval_data, "
                             "--data_dir or pretrain_tfrecords in --hparams")
  return value


def run():
  common.run(main)


if __name__ == "__main__":
  run()
