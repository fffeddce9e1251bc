"""The explicit table from our variables to the original TF1 variable names.

Built by walking the model's structure (which encoder, which layer, which
sublayer), never by matching variable paths, so a renamed Keras layer cannot
silently break the mapping.
"""


def _dense(table, prefix, layer):
  table[f"{prefix}/kernel"] = layer.kernel
  table[f"{prefix}/bias"] = layer.bias


def _layer_norm(table, prefix, layer):
  table[f"{prefix}/gamma"] = layer.gamma
  table[f"{prefix}/beta"] = layer.beta


def _embeddings(table, prefix, embeddings):
  table[f"{prefix}/word_embeddings"] = embeddings.word_embeddings
  table[f"{prefix}/token_type_embeddings"] = embeddings.token_type_embeddings
  table[f"{prefix}/position_embeddings"] = embeddings.position_embeddings
  _layer_norm(table, f"{prefix}/LayerNorm", embeddings.layer_norm)


def _block(table, prefix, block):
  for name in ("query", "key", "value"):
    _dense(table, f"{prefix}/attention/self/{name}",
           getattr(block.attention, name))
  _dense(table, f"{prefix}/attention/output/dense", block.attention_output)
  _layer_norm(table, f"{prefix}/attention/output/LayerNorm",
              block.attention_layer_norm)
  _dense(table, f"{prefix}/intermediate/dense", block.intermediate)
  _dense(table, f"{prefix}/output/dense", block.output_dense)
  _layer_norm(table, f"{prefix}/output/LayerNorm", block.output_layer_norm)


def encoder_variables(encoder, scope, embeddings_scope=None):
  """TF1 name -> variable for one encoder under `scope` ("electra", ...)."""
  table = {}
  if embeddings_scope is not False:
    _embeddings(table, f"{embeddings_scope or scope}/embeddings",
                encoder.embeddings)
  if encoder.embeddings_project is not None:
    _dense(table, f"{scope}/embeddings_project", encoder.embeddings_project)
  for i, block in enumerate(encoder.blocks):
    _block(table, f"{scope}/encoder/layer_{i}", block)
  return table


def pretrainer_variables(pretrainer):
  """TF1 name -> variable for every variable of an `ElectraPretrainer`."""
  if not pretrainer.built:
    pretrainer.build()
  electra = pretrainer.electra_encoder
  table = encoder_variables(electra, "electra")
  if pretrainer.discriminator is not None:
    head = pretrainer.discriminator.head
    _dense(table, "discriminator_predictions/dense", head.dense)
    _dense(table, "discriminator_predictions/dense_1", head.logit)
  generator = pretrainer.generator
  if generator is not None:
    if generator.encoder is not electra:
      shares = generator.encoder.embeddings is electra.embeddings
      table.update(encoder_variables(
          generator.encoder, "generator",
          embeddings_scope=False if shares else None))
    _mlm_head(table, "generator_predictions", generator.mlm_head)
  if pretrainer.main_mlm_head is not None:
    # Replace / All-Tokens MLM ablations (not in the original code).
    _mlm_head(table, "electra_mlm_predictions", pretrainer.main_mlm_head)
  return table


def _mlm_head(table, scope, head):
  _dense(table, f"{scope}/dense", head.dense)
  _layer_norm(table, f"{scope}/LayerNorm", head.layer_norm)
  table[f"{scope}/output_bias"] = head.output_bias
