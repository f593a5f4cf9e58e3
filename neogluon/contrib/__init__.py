"""MXNet's ``mx.contrib``: of its modules neogluon builds ``contrib.amp``; the others
(``onnx``, ``quantization``, ``text``, ``tensorboard``, ...) come from MXNet's recorded
module table (see ``neogluon._names``) until they are built."""
