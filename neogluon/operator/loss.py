"""Output and loss operators with MXNet's own gradients: SoftmaxOutput, *RegressionOutput, MakeLoss, CTCLoss, ..."""
