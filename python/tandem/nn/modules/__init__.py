from .module import Module
from .container import Sequential, ModuleList, ModuleDict
from .linear import Identity, Linear, Flatten, Embedding
from .conv import Conv2d, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm
from .activation import (ReLU, GELU, SiLU, LeakyReLU, ELU, SELU, CELU, Softplus, Hardtanh, ReLU6, Hardsigmoid,
                         Hardswish, Mish, Softsign, LogSigmoid, Tanhshrink, Threshold, Hardshrink, Softshrink, Sigmoid,
                         Tanh, Softmax, LogSoftmax, Dropout)
from .loss import CrossEntropyLoss, NLLLoss, MSELoss, L1Loss, BCELoss, BCEWithLogitsLoss

__all__ = [
    "Module", "Sequential", "ModuleList", "ModuleDict", "Identity", "Linear", "Flatten", "Embedding", "Conv2d",
    "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "BatchNorm1d", "BatchNorm2d", "LayerNorm", "ReLU", "GELU",
    "SiLU", "LeakyReLU", "ELU", "SELU", "CELU", "Softplus", "Hardtanh", "ReLU6", "Hardsigmoid", "Hardswish", "Mish",
    "Softsign", "LogSigmoid", "Tanhshrink", "Threshold", "Hardshrink", "Softshrink", "Sigmoid", "Tanh", "Softmax",
    "LogSoftmax", "Dropout", "CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "BCELoss", "BCEWithLogitsLoss",
]
