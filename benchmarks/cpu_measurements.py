"""What a throughput benchmark needs to know about the CPU it runs on.

The matmul peak is the best FLOP/s of large square matmuls over every
kernel library at hand (XLA's, TensorFlow's oneDNN kernels, PyTorch's MKL /
oneDNN): the hardware's demonstrated throughput in a dtype, not one
library's. The streaming rate is what an XLA element-wise kernel reads and
writes per second over buffers larger than the caches. `CpuMeter` measures
how much CPU other processes took while we timed, so a busy machine is
reported instead of silently slowing the run.
"""

import os
import time

MATMUL_SIZES = (1024, 2048)
CHAIN = 4  # matmuls per call, so the call overhead is negligible
# The streaming rate's buffers: float32 inputs of 16 MB (under glibc's
# largest mmap threshold, so outputs are reused, not page-faulted in anew),
# enough of them (768 MB) that they do not stay in the caches.
STREAM_BUFFER_ELEMENTS = 1 << 22
STREAM_BUFFERS = 48


def best_rate(fn, work_per_call, seconds):
  """Work (FLOPs, bytes) per second of `fn` over a `seconds` window, after
  one warm-up call."""
  fn()
  calls, start = 0, time.perf_counter()
  while time.perf_counter() - start < seconds:
    fn()
    calls += 1
  return calls * work_per_call / (time.perf_counter() - start)


def _tf_chain(tf, dtype, size, jit_compile):
  a = tf.cast(tf.random.stateless_uniform([size, size], seed=[1, 2]), dtype)
  scale = tf.cast(1.0 / size, dtype)  # keeps the values bounded

  @tf.function(jit_compile=jit_compile)
  def chain(x):
    for _ in range(CHAIN):
      x = tf.matmul(x, a) * scale
    return x

  return lambda: chain(a).numpy()


def _torch_chain(torch, dtype, size):
  a = torch.rand(size, size).to(dtype)
  scale = 1.0 / size

  def chain():
    x = a
    for _ in range(CHAIN):
      x = torch.matmul(x, a) * scale
    return x

  return chain


def matmul_peaks(dtype_name, seconds, torch=None):
  """{library: best FLOP/s over `MATMUL_SIZES`} for one dtype."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  libraries = {
      "TF/XLA": lambda size: _tf_chain(tf, tf.as_dtype(dtype_name), size,
                                       True),
      "TF/oneDNN": lambda size: _tf_chain(tf, tf.as_dtype(dtype_name), size,
                                          False)}
  if torch is not None:
    libraries["torch"] = lambda size: _torch_chain(
        torch, getattr(torch, dtype_name), size)
  return {name: max(best_rate(make(size), CHAIN * 2 * size ** 3, seconds)
                    for size in MATMUL_SIZES)
          for name, make in libraries.items()}


def streaming_rate(seconds):
  """Bytes/s read plus written by an XLA-compiled `x * 2` (float32) over
  `STREAM_BUFFERS` inputs in turn: what an element-wise kernel can move."""
  import tensorflow as tf  # pylint: disable=g-import-not-at-top
  inputs = [tf.fill([STREAM_BUFFER_ELEMENTS], float(i))
            for i in range(STREAM_BUFFERS)]
  double = tf.function(lambda x: x * 2.0, jit_compile=True)

  def one_pass():
    for x in inputs:
      result = double(x)
    result.numpy()

  bytes_per_pass = STREAM_BUFFERS * 2 * 4 * STREAM_BUFFER_ELEMENTS
  return best_rate(one_pass, bytes_per_pass, seconds)


def cpu_name():
  """The CPU model from /proc/cpuinfo (Linux), else a placeholder."""
  try:
    with open("/proc/cpuinfo") as f:
      for line in f:
        if line.startswith("model name"):
          return line.split(":", 1)[1].strip()
  except OSError:
    pass
  return "unknown CPU"


class CpuMeter:
  """Cores used by other processes while inside `with meter:` (Linux).

  Reads the machine's busy time (/proc/stat) and this process's CPU time
  (/proc/self/stat); the difference is everybody else's.
  """

  def __init__(self):
    self.other_seconds = 0.0
    self.wall_seconds = 0.0
    self._start = None

  @staticmethod
  def _read():
    try:
      with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
      with open("/proc/self/stat") as f:
        own = f.read().rsplit(")", 1)[1].split()
    except OSError:
      return None
    tick = os.sysconf("SC_CLK_TCK")
    busy = sum(fields) - fields[3] - fields[4]  # all but idle and iowait
    own_time = int(own[11]) + int(own[12])  # utime + stime
    return busy / tick, own_time / tick, time.perf_counter()

  def __enter__(self):
    self._start = self._read()
    return self

  def __exit__(self, *exc):
    end = self._read()
    if self._start and end:
      self.other_seconds += max(0.0, (end[0] - self._start[0])
                                - (end[1] - self._start[1]))
      self.wall_seconds += end[2] - self._start[2]

  @property
  def other_cores(self):
    """Average cores other processes used, or None when unknown."""
    if not self.wall_seconds:
      return None
    return self.other_seconds / self.wall_seconds
