"""What every train step does on one replica after its loss: gradients,
their sum over replicas, loss-scale unscaling, clipping, the update.

The loss a replica differentiates is its share of the global loss (shares
sum to it), gradients are summed over replicas and clipped once, so N
replicas update exactly as one device does on the same global batch.
"""

import tensorflow as tf

from electra_tf.training import optimization


def all_reduce_sum(values):
  """`values` summed over the replicas in sync (as is on one replica)."""
  context = tf.distribute.get_replica_context()
  if context is None or context.num_replicas_in_sync == 1:
    return values
  return context.all_reduce(tf.distribute.ReduceOp.SUM, values)


def replica_offset(batch_size):
  """Global index of this replica's first example."""
  context = tf.distribute.get_replica_context()
  replica = 0 if context is None else context.replica_id_in_sync_group
  return tf.cast(replica, tf.int32) * batch_size


def gradients(loss_fn, variables, loss_scale=None):
  """Differentiates `loss_fn() -> (loss share, outputs)` on this replica.

  Returns (gradients summed over replicas, unscaled; None ones as zeros,
  this replica's loss, outputs).
  """
  with tf.GradientTape() as tape:
    loss, outputs = loss_fn()
    scaled = loss if loss_scale is None else loss_scale.scale(loss)
  grads = tape.gradient(scaled, variables)
  grads = [tf.zeros_like(v) if g is None else tf.convert_to_tensor(g)
           for g, v in zip(grads, variables)]
  grads = all_reduce_sum(grads)
  if loss_scale is not None:
    grads = loss_scale.unscale(grads)
  return grads, loss, outputs


def apply_clipped(optimizer, grads, variables, loss_scale=None):
  """Clips `grads` to the original's global norm and applies them (with a
  loss scale: only when finite); returns the norm before clipping."""
  grads, norm = optimization.clip_by_global_norm(grads)
  if loss_scale is None:
    optimizer.apply(grads, variables)
  else:
    loss_scale.apply_if_finite(optimizer, grads, norm, variables)
  return norm
