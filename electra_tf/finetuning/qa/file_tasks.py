"""QA tasks on the user's SQuAD-format JSON files (SQuAD 1.1 or 2.0 style)."""

from electra_tf.finetuning import spec_files
from electra_tf.finetuning.qa import squad


class FileQATask(spec_files.SpecFiles, squad.SquadTask):
  """Extractive QA from SQuAD-format JSON files."""

  spec_formats = ("squad",)
  spec_metrics = ("exact", "f1")
  default_metrics = ("exact", "f1")
  reads_pairs = False
  filled_from_train = ()

  def __init__(self, spec):
    super().__init__(spec["name"], v2=spec["unanswerable"])
    exact = "exact" if self.v2 else "exact_match"
    self.metric_names = tuple(exact if m == "exact" else m
                              for m in spec["metrics"])
    if spec["num_train_epochs"] is not None:
      self.num_train_epochs = float(spec["num_train_epochs"])
    if spec["max_seq_length"] is not None:
      self.default_max_seq_length = spec["max_seq_length"]
    self._set_spec(spec)
