"""Building the tf.distribute strategy: the only file that knows devices.

Choices: "tpu" (TPUClusterResolver + TPUStrategy, for Cloud TPU VMs and pods),
"mirrored" (all local GPUs, or the given devices), "multi_worker"
(MultiWorkerMirroredStrategy from TF_CONFIG), "default" (one device), and
"auto" which picks tpu when a TPU name is set, mirrored on several GPUs and
default otherwise.
"""

import tensorflow as tf

from electra_tf import errors

STRATEGIES = ("auto", "default", "mirrored", "multi_worker", "tpu")


def build_strategy(kind="auto", tpu=None, tpu_zone=None, gcp_project=None,
                   devices=None):
  """Returns a `tf.distribute.Strategy` of the given kind."""
  if kind not in STRATEGIES:
    raise errors.ConfigError(
        f"strategy {kind!r} is not one of {', '.join(STRATEGIES)}")
  if kind == "auto":
    gpus = tf.config.list_logical_devices("GPU")
    kind = "tpu" if tpu else ("mirrored" if len(gpus) > 1 else "default")
  if kind == "tpu":
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(
        tpu=tpu or "", zone=tpu_zone, project=gcp_project)
    tf.config.experimental_connect_to_cluster(resolver)
    tf.tpu.experimental.initialize_tpu_system(resolver)
    return tf.distribute.TPUStrategy(resolver)
  if kind == "mirrored":
    return tf.distribute.MirroredStrategy(devices=devices)
  if kind == "multi_worker":
    return tf.distribute.MultiWorkerMirroredStrategy()
  return tf.distribute.get_strategy()


def is_tpu(strategy):
  return isinstance(strategy, tf.distribute.TPUStrategy)


def uses_xla_everywhere(strategy):
  """Whether the whole replicated step may be wrapped in jit_compile.

  TPU programs are XLA-compiled anyway; a single device compiles the whole
  step. MirroredStrategy's cross-device all-reduce is not XLA-compilable on
  CPU/GPU, so those runs compile nothing (see README).
  """
  return is_tpu(strategy) or strategy.num_replicas_in_sync == 1
