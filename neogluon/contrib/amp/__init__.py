"""MXNet's ``mx.contrib.amp``: automatic mixed precision (see :mod:`.amp`)."""
from . import amp, loss_scaler  # noqa: F401
from .amp import (init, init_trainer, scale_loss, unscale, convert_symbol, convert_model,  # noqa: F401
                  convert_hybrid_block, list_lp16_ops,
                  list_fp32_ops, list_lp16_fp32_ops, list_conditional_fp32_ops, list_widest_type_cast,
                  list_loss_output_functions, list_lp16_use_fp32_params)
