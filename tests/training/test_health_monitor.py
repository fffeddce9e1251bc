"""The health monitor inside the pretraining loop."""

import pytest
import tensorflow as tf

from electra_tf.pretraining import health_monitor
from electra_tf.pretraining import train_loop
from tests.training.conftest import tiny_config


def test_an_unhealthy_run_warns_and_stops_when_asked(shards, tmp_path):
  config = tiny_config(num_train_steps=40, num_warmup_steps=0,
                       save_checkpoints_steps=4, health_eval_batches=2,
                       health_every_steps=2, stop_if_unhealthy_steps=4)
  with pytest.raises(health_monitor.UnhealthyRun) as error:
    train_loop.pretrain(config, tf.distribute.get_strategy(), str(tmp_path),
                        shards)
  message = str(error.value)
  assert "unhealthy since step 2" in message and "stopped at step 6" in message
  assert tf.train.latest_checkpoint(str(tmp_path)).endswith("ckpt-6")
  events = tf.io.gfile.glob(str(tmp_path / "health" / "events.*"))
  assert events


def test_zero_health_batches_turn_the_checks_off(shards, tmp_path):
  config = tiny_config(num_train_steps=8, num_warmup_steps=0,
                       save_checkpoints_steps=4, health_eval_batches=0,
                       health_every_steps=2, stop_if_unhealthy_steps=4)
  result = train_loop.pretrain(config, tf.distribute.get_strategy(),
                               str(tmp_path), shards)
  assert result.step == 8
  assert not tf.io.gfile.glob(str(tmp_path / "health" / "events.*"))
