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
                   devices=None, tpu_job_name=None):
  """Returns a `tf.distribute.Strategy` of the given kind."""
  if kind not in STRATEGIES:
    raise errors.ConfigError(
        f"strategy {kind!r} is not one of {', '.join(STRATEGIES)}")
  if kind == "auto":
    gpus = tf.config.list_logical_devices("GPU")
    kind = "tpu" if tpu else ("mirrored" if len(gpus) > 1 else "default")
  if kind == "tpu":
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(
        tpu=tpu or "", zone=tpu_zone, project=gcp_project,
        job_name=tpu_job_name or "worker")
    tf.config.experimental_connect_to_cluster(resolver)
    tf.tpu.experimental.initialize_tpu_system(resolver)
    return tf.distribute.TPUStrategy(resolver)
  if kind == "mirrored":
    return tf.distribute.MirroredStrategy(devices=devices)
  if kind == "multi_worker":
    return tf.distribute.MultiWorkerMirroredStrategy()
  return tf.distribute.get_strategy()


def strategy_for_run(config, kind="auto", tpu=None):
  """The strategy a run's flags and its original TPU hparams ask for.

  `config` is a pretraining or finetuning config. The original's keys are
  honoured, never ignored: `use_tpu` needs a TPU (`--tpu` or `tpu_name`)
  and runs on it; `tpu_job_name` names the resolver's job; an explicitly
  set `num_tpu_cores` must equal the TPU's replica count. `ConfigError`
  otherwise (e.g. `use_tpu` with no TPU named would train on the CPU).
  """
  tpu = tpu or config.tpu_name
  passed = config.hparams_passed
  if config.use_tpu and not tpu:
    raise errors.ConfigError(
        "use_tpu is true but no TPU is named: pass --tpu or set tpu_name "
        "(or set use_tpu false to run here)")
  if tpu and kind not in ("auto", "tpu"):
    raise errors.ConfigError(f"a TPU ({tpu}) is named but --strategy={kind}")
  if not tpu and "num_tpu_cores" in passed and config.num_tpu_cores != 1:
    raise errors.ConfigError(
        f"num_tpu_cores={config.num_tpu_cores} is set but the run is not on "
        "a TPU (name one with --tpu or tpu_name)")
  strategy = build_strategy(
      "tpu" if tpu else kind, tpu=tpu, tpu_zone=config.tpu_zone,
      gcp_project=config.gcp_project, tpu_job_name=config.tpu_job_name)
  if (tpu and "num_tpu_cores" in passed
      and config.num_tpu_cores != strategy.num_replicas_in_sync):
    raise errors.ConfigError(
        f"num_tpu_cores={config.num_tpu_cores} but TPU {tpu} has "
        f"{strategy.num_replicas_in_sync} cores")
  return strategy


def is_tpu(strategy):
  return isinstance(strategy, tf.distribute.TPUStrategy)


def compiles_step(strategy, jit_compile):
  """Whether a train step is wrapped in `tf.function(jit_compile=True)`:
  when asked, on a single device. TPU programs are XLA-compiled anyway, and
  MirroredStrategy's cross-device all-reduce cannot be compiled on CPU/GPU,
  so those runs wrap nothing (see README)."""
  return (jit_compile and not is_tpu(strategy)
          and strategy.num_replicas_in_sync == 1)


def single_process(strategy):
  """Whether one process drives the whole run (TPU runs included: one
  client drives every host), so host-side decisions need no agreement."""
  resolver = getattr(strategy, "cluster_resolver", None)
  if resolver is None or is_tpu(strategy):
    return True
  spec = resolver.cluster_spec().as_dict()
  return sum(len(spec.get(job, ())) for job in ("chief", "worker")) <= 1


def is_chief(strategy):
  """Whether this process writes the run's files (one worker of several)."""
  return strategy.extended.should_checkpoint


def summary_writer(strategy, log_dir):
  """A TensorBoard writer into `log_dir` on the chief; on other workers a
  no-op one, so a run has one event file."""
  if is_chief(strategy):
    return tf.summary.create_file_writer(log_dir)
  return tf.summary.create_noop_writer()
