"""The original optimizer: AdamW without bias correction, LAMB as an option.

Learning rate: linear warmup multiplied with polynomial decay to zero,
`lr * (1 - min(step, T) / T) ** power * min(1, step / warmup)`. Updates:

  m <- b1 m + (1 - b1) g;  v <- b2 v + (1 - b2) g^2
  u <- m / (sqrt(v) + eps) [+ wd * w unless LayerNorm or bias]
  w <- w - lr * multiplier(w) * u              (adamw, the original)
  w <- w - lr * multiplier(w) * r * u          (lamb; bias-corrected m, v;
                                                r = |w| / |u| per variable)

Gradients are clipped to global norm 1.0 first. Weight decay is structural:
variables of rank >= 2 (kernels and embedding tables) decay, everything else
(LayerNorm gamma/beta, biases) does not, which is the variable set the
original's name regexes select.
"""

import tensorflow as tf

from electra_tf import errors

CLIP_NORM = 1.0


def learning_rate_at(step, base_rate, num_train_steps, warmup_steps,
                     decay_power=1.0):
  """The original schedule at `step` (float32, as the TF1 ops compute it)."""
  step = tf.cast(step, tf.float32)
  total = float(num_train_steps)
  decayed = base_rate * tf.pow(1.0 - tf.minimum(step, total) / total,
                               decay_power)
  if warmup_steps:
    decayed *= tf.minimum(1.0, step / float(warmup_steps))
  return decayed


def decays(variable):
  """Whether weight decay applies: kernels and embeddings, not LN/biases."""
  return len(variable.shape) >= 2


class AdamWeightDecay(tf.Module):
  """AdamW as the original ELECTRA/BERT (`lamb=True` for LAMB).

  Args:
    learning_rate: a callable step -> learning rate.
    weight_decay_rate: decoupled weight decay, 0.01 in the paper.
    beta_1, beta_2, epsilon: Adam constants (0.9, 0.999, 1e-6).
    lamb: use layer-wise trust ratios (LAMB) instead of plain AdamW.
    lr_multipliers: optional {variable ref: factor} for layer-wise decay.

  Call `build(variables)` under the strategy scope, then `apply(grads,
  variables)` from the replica function with gradients already summed over
  replicas and clipped, or from a single-device step.
  """

  def __init__(self, learning_rate, weight_decay_rate=0.01, beta_1=0.9,
               beta_2=0.999, epsilon=1e-6, lamb=False, lr_multipliers=None,
               name="optimizer"):
    super().__init__(name=name)
    self.learning_rate = learning_rate
    self.weight_decay_rate = weight_decay_rate
    self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon
    self.lamb = lamb
    self.lr_multipliers = lr_multipliers or {}
    self.iterations = tf.Variable(0, dtype=tf.int64, trainable=False,
                                  name="iterations")
    self.adam_m, self.adam_v = [], []
    self._slot_index = {}

  def build(self, variables):
    """Creates the m and v slots (zeros) next to each variable."""
    for i, var in enumerate(variables):
      self._slot_index[variable_key(var)] = i
      with tf.init_scope():
        self.adam_m.append(tf.Variable(tf.zeros(var.shape, tf.float32),
                                       trainable=False, name="adam_m"))
        self.adam_v.append(tf.Variable(tf.zeros(var.shape, tf.float32),
                                       trainable=False, name="adam_v"))

  def slots(self, variable):
    """The (m, v) slot variables of `variable`."""
    i = self._slot_index[variable_key(variable)]
    return self.adam_m[i], self.adam_v[i]

  def current_learning_rate(self):
    return self.learning_rate(self.iterations)

  def apply(self, grads, variables, keep=None):
    """One update of `variables`; increments `iterations`.

    `keep`, a boolean scalar, leaves variables and slots unchanged when
    False (a skipped float16 step); the step still counts.
    """
    if len(self.adam_m) != len(variables):
      raise errors.ConfigError("optimizer.build(variables) was not called")
    lr = self.current_learning_rate()
    context = tf.distribute.get_replica_context()
    if context is None or not tf.distribute.has_strategy():
      self._apply_local(grads, variables, lr, keep)
    else:
      context.merge_call(self._apply_distributed,
                         args=(grads, variables, lr, keep))

  def _apply_distributed(self, strategy, grads, variables, lr, keep):
    for grad, var in zip(grads, variables):
      m, v = self.slots(var)
      strategy.extended.update(_tf_variable(var), self._update_variable,
                               args=(grad, m, v, lr, self._factor(var),
                                     decays(var), keep), group=False)
    strategy.extended.update(self.iterations, lambda it: it.assign_add(1),
                             group=False)

  def _apply_local(self, grads, variables, lr, keep):
    for grad, var in zip(grads, variables):
      m, v = self.slots(var)
      self._update_variable(_tf_variable(var), grad, m, v, lr,
                            self._factor(var), decays(var), keep)
    self.iterations.assign_add(1)

  def _factor(self, var):
    return self.lr_multipliers.get(variable_key(var), 1.0)

  def _update_variable(self, var, grad, m, v, lr, factor, decay, keep=None):
    grad = tf.convert_to_tensor(grad, tf.float32)
    next_m = self.beta_1 * m + (1.0 - self.beta_1) * grad
    next_v = self.beta_2 * v + (1.0 - self.beta_2) * tf.square(grad)
    if self.lamb:
      t = tf.cast(self.iterations + 1, tf.float32)
      m_hat = next_m / (1.0 - tf.pow(self.beta_1, t))
      v_hat = next_v / (1.0 - tf.pow(self.beta_2, t))
      update = m_hat / (tf.sqrt(v_hat) + self.epsilon)
    else:
      update = next_m / (tf.sqrt(next_v) + self.epsilon)
    if decay and self.weight_decay_rate > 0:
      update += self.weight_decay_rate * var
    if self.lamb and decay:
      w_norm, u_norm = tf.norm(var), tf.norm(update)
      ratio = tf.where((w_norm > 0) & (u_norm > 0), w_norm / u_norm, 1.0)
      update *= ratio
    next_var = var - (lr * factor) * update
    if keep is not None:
      next_var = tf.where(keep, next_var, var)
      next_m = tf.where(keep, next_m, m)
      next_v = tf.where(keep, next_v, v)
    var.assign(next_var)
    m.assign(next_m)
    v.assign(next_v)


def _tf_variable(var):
  """The tf.Variable behind a Keras variable (or the tf.Variable itself)."""
  if isinstance(var, tf.Variable):
    return var
  return var.value


def variable_key(var):
  return _tf_variable(var).ref()


def create_optimizer(variables, learning_rate, num_train_steps,
                     num_warmup_steps, weight_decay_rate=0.01,
                     lr_decay_power=1.0, lamb=False, lr_multipliers=None):
  """AdamW (or LAMB) on the original schedule (linear warmup, then
  polynomial decay to 0 at `num_train_steps`), built over `variables`."""
  def schedule(step):
    return learning_rate_at(step, learning_rate, num_train_steps,
                            num_warmup_steps, lr_decay_power)
  optimizer = AdamWeightDecay(
      schedule, weight_decay_rate=weight_decay_rate, lamb=lamb,
      lr_multipliers=lr_multipliers)
  optimizer.build(variables)
  return optimizer


def clip_by_global_norm(grads):
  """The original's clipping to global norm 1.0; returns (grads, norm)."""
  return tf.clip_by_global_norm(grads, CLIP_NORM)
