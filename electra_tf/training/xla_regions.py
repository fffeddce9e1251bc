"""XLA for a step's element-wise work, TensorFlow's kernels for its matmuls.

On CPUs with bfloat16 matrix units, TensorFlow's oneDNN matmuls run
bfloat16 about 4x as fast as XLA's CPU dots (1197 against 263 GFLOP/s on an
Intel Xeon with AMX), while XLA fuses the element-wise chains (GELU, layer
norm, dropout's counter hash, softmax, AdamW) that TensorFlow runs one
kernel at a time. `all_but_matmuls` builds a function's ops so that XLA
clusters and compiles the ops of `FUSED_OPS` (element-wise, reductions,
shapes) and leaves everything else, matmuls first, to TensorFlow's kernels
(`tf.xla.experimental.jit_scope`, gradients included).
"""

import tensorflow as tf

from electra_tf.modeling import matmul_sums

# Element-wise ops, reductions, softmaxes and shape ops: what XLA fuses
# well. Not here, so left to TensorFlow: MatMul (but `matmul_sums.row_sums`'
# sums, which XLA computes from their fused inputs), BatchMatMulV2, variable
# reads and writes, gathers and scatters (embedding lookups, their
# gradients), and anything else.
FUSED_OPS = frozenset("""
    Abs AddN AddV2 BiasAdd BiasAddGrad BitwiseAnd BitwiseOr BitwiseXor
    BroadcastTo Cast ConcatV2 Const Equal Erf Erfc Exp ExpandDims Fill Floor
    FloorDiv FloorMod Greater GreaterEqual Identity LeftShift Less LessEqual
    L2Loss Log Log1p LogSoftmax LogicalAnd LogicalNot LogicalOr Max Maximum
    Mean Min Minimum Mul Neg NotEqual OneHot Pack Pow Prod Range RealDiv
    Reciprocal ReciprocalGrad Reshape RightShift Round Rsqrt RsqrtGrad Select
    SelectV2 Shape Sigmoid SigmoidGrad Softmax Sqrt SqrtGrad Square
    SquaredDifference Squeeze StopGradient StridedSlice Sub Sum Tanh TanhGrad
    Tile Transpose
""".split())


def _fused(node_def):
  return node_def.op in FUSED_OPS or (
      node_def.op == "MatMul" and
      node_def.name.rsplit("/", 1)[-1].startswith(matmul_sums.ROW_SUMS))


def all_but_matmuls(fn):
  """`fn`, whose ops (built inside a `tf.function`) XLA compiles where they
  are in `FUSED_OPS`; the rest run on TensorFlow's kernels."""

  def wrapped(*args, **kwargs):
    with tf.xla.experimental.jit_scope(compile_ops=_fused,
                                       separate_compiled_gradients=False):
      return fn(*args, **kwargs)

  return wrapped
