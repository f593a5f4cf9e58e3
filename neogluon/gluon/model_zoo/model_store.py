"""``mx.gluon.model_zoo.model_store``: the local store of pretrained model files, as in
MXNet 1.9.1, without the network.

MXNet keeps the pretrained parameters of ``gluon.model_zoo.vision`` in
``$MXNET_HOME/models`` (``~/.mxnet/models`` by default) as ``<name>-<short sha1>.params``,
the short SHA-1 being the first 8 hex digits of the file's full SHA-1 listed in
``_model_sha1``. ``get_model_file`` returns that path once the file's SHA-1 matches.

Unlike MXNet, nothing is ever downloaded: where MXNet would fetch
``<repo>/gluon/models/<name>-<short sha1>.zip``, ``get_model_file`` raises an MXNetError
that names the file, the directory to put it in and the URL MXNet would have fetched it
from; a file whose SHA-1 differs (MXNet warns and downloads again) raises an MXNetError
with both hashes. ``root`` defaults to ``$MXNET_HOME/models`` read at call time (MXNet
reads it once, at import).
"""
import os

from ...base import MXNetError, data_dir
from ...fileio import file_digest

__all__ = ["get_model_file", "purge"]

# MXNet 1.9.1's table of the SHA-1 of every pretrained parameter file, by model name
_model_sha1 = {name: checksum for checksum, name in [
    ("44335d1f0046b328243b32a26a4fbd62d9057b45", "alexnet"),
    ("f27dbf2dbd5ce9a80b102d89c7483342cd33cb31", "densenet121"),
    ("b6c8a95717e3e761bd88d145f4d0a214aaa515dc", "densenet161"),
    ("2603f878403c6aa5a71a124c4a3307143d6820e9", "densenet169"),
    ("1cdbc116bc3a1b65832b18cf53e1cb8e7da017eb", "densenet201"),
    ("ed47ec45a937b656fcc94dabde85495bbef5ba1f", "inceptionv3"),
    ("9f83e440996887baf91a6aff1cccc1c903a64274", "mobilenet0.25"),
    ("8e9d539cc66aa5efa71c4b6af983b936ab8701c3", "mobilenet0.5"),
    ("529b2c7f4934e6cb851155b22c96c9ab0a7c4dc2", "mobilenet0.75"),
    ("6b8c5106c730e8750bcd82ceb75220a3351157cd", "mobilenet1.0"),
    ("36da4ff1867abccd32b29592d79fc753bca5a215", "mobilenetv2_1.0"),
    ("e2be7b72a79fe4a750d1dd415afedf01c3ea818d", "mobilenetv2_0.75"),
    ("aabd26cd335379fcb72ae6c8fac45a70eab11785", "mobilenetv2_0.5"),
    ("ae8f9392789b04822cbb1d98c27283fc5f8aa0a7", "mobilenetv2_0.25"),
    ("a0666292f0a30ff61f857b0b66efc0228eb6a54b", "resnet18_v1"),
    ("48216ba99a8b1005d75c0f3a0c422301a0473233", "resnet34_v1"),
    ("0aee57f96768c0a2d5b23a6ec91eb08dfb0a45ce", "resnet50_v1"),
    ("d988c13d6159779e907140a638c56f229634cb02", "resnet101_v1"),
    ("671c637a14387ab9e2654eafd0d493d86b1c8579", "resnet152_v1"),
    ("a81db45fd7b7a2d12ab97cd88ef0a5ac48b8f657", "resnet18_v2"),
    ("9d6b80bbc35169de6b6edecffdd6047c56fdd322", "resnet34_v2"),
    ("ecdde35339c1aadbec4f547857078e734a76fb49", "resnet50_v2"),
    ("18e93e4f48947e002547f50eabbcc9c83e516aa6", "resnet101_v2"),
    ("f2695542de38cf7e71ed58f02893d82bb409415e", "resnet152_v2"),
    ("264ba4970a0cc87a4f15c96e25246a1307caf523", "squeezenet1.0"),
    ("33ba0f93753c83d86e1eb397f38a667eaf2e9376", "squeezenet1.1"),
    ("dd221b160977f36a53f464cb54648d227c707a05", "vgg11"),
    ("ee79a8098a91fbe05b7a973fed2017a6117723a8", "vgg11_bn"),
    ("6bc5de58a05a5e2e7f493e2d75a580d83efde38c", "vgg13"),
    ("7d97a06c3c7a1aecc88b6e7385c2b373a249e95e", "vgg13_bn"),
    ("e660d4569ccb679ec68f1fd3cce07a387252a90a", "vgg16"),
    ("7f01cf050d357127a73826045c245041b0df7363", "vgg16_bn"),
    ("ad2f660d101905472b83590b59708b71ea22b2e5", "vgg19"),
    ("f360b758e856f1074a85abd5fd873ed1d98297c3", "vgg19_bn")]}

apache_repo_url = "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/"
_url_format = "{repo_url}gluon/models/{file_name}.zip"


def default_root():
    """The model directory: ``$MXNET_HOME/models`` (``~/.mxnet/models`` by default)."""
    return os.path.join(data_dir(), "models")


def short_hash(name):
    """The first 8 hex digits of the SHA-1 of ``name``'s parameter file; ValueError, as
    MXNet, for a model without pretrained parameters."""
    if name not in _model_sha1:
        raise ValueError("Pretrained model for {name} is not available.".format(name=name))
    return _model_sha1[name][:8]


def _source_url(file_name):
    """The URL MXNet downloads ``file_name`` (without extension) from, honouring
    ``$MXNET_GLUON_REPO`` as MXNet does."""
    repo_url = os.environ.get("MXNET_GLUON_REPO", apache_repo_url)
    if not repo_url.endswith("/"):
        repo_url += "/"
    return _url_format.format(repo_url=repo_url, file_name=file_name)


def get_model_file(name, root=None):
    """Return the path of the pretrained parameter file of model ``name`` in ``root``
    (default ``$MXNET_HOME/models``): ``<root>/<name>-<short sha1>.params``.

    The file must already be there (nothing is downloaded) and its SHA-1 must be the one
    MXNet 1.9.1 lists; otherwise MXNetError says which file to put where."""
    file_name = "{name}-{short_hash}".format(name=name, short_hash=short_hash(name))
    root = os.path.expanduser(default_root() if root is None else root)
    file_path = os.path.join(root, file_name + ".params")
    sha1_hash = _model_sha1[name]
    if not os.path.exists(file_path):
        raise MXNetError(
            "Pretrained model file {fname} for '{name}' not found in {root}. neogluon never "
            "downloads: get {url} (MXNet's copy), unzip it and put {fname} into {root} "
            "(the directory is $MXNET_HOME/models, ~/.mxnet/models by default, or the "
            "'root' argument).".format(fname=file_name + ".params", name=name, root=root,
                                       url=_source_url(file_name)))
    actual = file_digest(file_path, "sha1")
    if actual != sha1_hash:
        raise MXNetError(
            "Mismatch in the content of model file {path}: its SHA-1 is {actual}, but MXNet "
            "1.9.1 lists {sha1} for '{name}'. Replace it with the file from {url}.".format(
                path=file_path, actual=actual, sha1=sha1_hash, name=name,
                url=_source_url(file_name)))
    return file_path


def purge(root=None):
    """Remove every ``.params`` file from ``root`` (default ``$MXNET_HOME/models``); as in
    MXNet, other files stay and a missing directory raises FileNotFoundError."""
    root = os.path.expanduser(default_root() if root is None else root)
    for f in os.listdir(root):
        if f.endswith(".params"):
            os.remove(os.path.join(root, f))


_PRETRAINED_PARAMETERS = """
    pretrained : bool, default False
        Whether to load the pretrained weights for model (from the local model store,
        which must hold the file: nothing is downloaded).
    ctx : Context, default CPU
        The context in which to load the pretrained weights.
    root : str, default $MXNET_HOME/models
        Location for keeping the model parameters.
    """


def _pretrained_doc(fn):
    """Append the parameters all model-zoo constructors share (``pretrained``, ``ctx``,
    ``root``) to ``fn``'s docstring (under a Parameters heading it adds if missing)."""
    doc = fn.__doc__.rstrip()
    if "----------" not in doc:
        doc += "\n\n    Parameters\n    ----------"
    fn.__doc__ = doc + _PRETRAINED_PARAMETERS
    return fn


def _load_pretrained(net, name, ctx, root):
    """``pretrained=True`` of the model-zoo constructors: load ``name``'s file from the
    store into ``net`` on ``ctx`` and return ``net``."""
    net.load_parameters(get_model_file(name, root=root), ctx=ctx)
    return net
