"""Export an MXNet graph as a standalone PyTorch module: readable source and a state_dict.

``export_torch(symbol, params, "out", {"data": (2, 3, 224, 224)})`` writes

- ``out/<model>.py``: one ``torch.nn.Module`` class, constructible with no arguments, whose
  ``forward`` is the graph's prediction (BatchNorm on its running statistics, Dropout off)
  as straight-line torch calls, ``torch.conv2d(data, self.conv0_weight, ...)``. It imports
  only torch. MXNet's parameter names are kept (made identifiers: ``conv0_weight``), and
  each intermediate value is named after the MXNet node that makes it (``conv0_fwd``);
- ``out/<model>.pt``: its ``state_dict`` (``torch.load`` + ``load_state_dict``);
- with ``exported_program=True``, ``out/<model>.pt2``: the module through ``torch.export``
  on the example shapes, for ``torch.export.load``.

**How: the executor's compiled function, captured by TorchDynamo.** The executor already
compiles a Symbol into one straight-line Python function over the operators' kernels
(:mod:`neogluon.executor.compiler`). That function is captured into a torch.fx graph by
``torch.compile`` with a backend that only keeps the graph (``fullgraph=True``): dynamo
runs the kernels as they are, resolves their Python (shape checks, cached plans, layout
branches) on the example shapes and records the torch calls they make, at the level of
``torch.*`` functions and tensor methods. The graph is then renamed (placeholders become the
module's inputs and ``self.<parameter>`` attributes, values take their MXNet node's name)
and written out by fx's own code generator.

Why this and not the alternatives tried (on LeNet and ResNet-18):

- ``torch.fx.symbolic_trace`` of the compiled function fails at the first kernel: the
  kernels check shapes in Python (``if data.dim() != nd + 2``), which symbolic proxies
  cannot decide. Rewriting every kernel to be proxy-traceable would fork them.
- An emitter per operator (torch source written from the attributes) is a second
  implementation of each operator's semantics, to be kept in step with its kernel, for
  several hundred operators. Capturing the kernels themselves cannot drift from them: the
  exported module computes what neogluon computes, by construction.

**Shapes.** Capture needs example shapes. The first dimension of every input (the batch,
for most models) is captured as symbolic (without "duck sizing": equal sizes stay separate
symbols), the others as the example's; if a kernel cannot follow a symbolic size, the
capture is done again with every size fixed. A size a kernel decided on while capturing
stays fixed too (torch specialises sizes 0 and 1): ``forward`` first checks the fixed sizes
of its inputs, raising ``ValueError`` with the input's name, the expected and the given
shapes. While capturing, Reshape applies MXNet's codes to the symbolic sizes instead of its
cached plan (``operator.shape.SYMBOLIC_SIZES``), so its target reads them
(``torch.reshape(x, (data_size0, -1))``): ResNet's and LeNet's exported modules take any
batch size. Marking every
dimension symbolic was tried too: correct, but every kernel's output-size arithmetic then
appears in ``forward`` and the code stops being readable. Give examples with a batch
above 1.

**Checked:** the module's outputs equal neogluon's (tests: every model-zoo
network, an LSTM language model, a BERT-style encoder, MXNet 1.9.1's exported fixture
models, run in a process without neogluon).

The captured graph is the prediction graph; its parameters are ``nn.Parameter`` (so the
module can be fine-tuned in torch, BatchNorm staying on its running statistics).
"""
import ast
import keyword
import os
import re
import warnings

import torch

from ..base import MXNetError
from ..operator.norm import UPDATE_IN_FORWARD
from ..operator.shape import SYMBOLIC_SIZES
from .compiler import CompiledGraph

__all__ = ["export_torch", "trace_torch", "load_module", "TorchSource", "identifier", "class_name"]

_LINE = re.compile(r'File "<neogluon\.executor graph_(?:predict|train)>", line (\d+)')
_NODE = re.compile(r"^\s*v(\d+)_\d+")


def identifier(name, taken=()):
    """An MXNet name as a Python identifier: ``resnetv10_conv0_weight`` stays,
    ``stage1.conv-0`` becomes ``stage1_conv_0``; a keyword gets a ``_``, a ``taken`` name
    a number (``conv0_fwd_1``)."""
    out = re.sub(r"\W", "_", name)
    if not out or out[0].isdigit():
        out = "_" + out
    if keyword.iskeyword(out):
        out += "_"
    base, k = out, 1
    while out in taken:
        out = "%s_%d" % (base, k)
        k += 1
    return out


def class_name(model):
    """``resnet18_v1`` -> ``Resnet18V1``."""
    parts = [p for p in re.split(r"[^0-9a-zA-Z]+", model) if p]
    out = "".join(p[:1].upper() + p[1:] for p in parts) or "Model"
    return out if not out[0].isdigit() else "Model" + out


# ---------------------------------------------------------------------- capture
def _capture(fn, tensors):
    """The torch.fx graph dynamo records for ``fn(*tensors)``, the real values of its
    placeholders (tensors, and ints for the symbolic sizes) and, for each output of ``fn``,
    its position among the graph's outputs (dynamo also outputs the values a kernel leaves
    behind, such as the sizes of a shape plan it caches)."""
    held = {}  # emptied below: dynamo's cache entry for fn keeps ``run``, not the graph or the weights

    def keep(gm, example_inputs):
        held["graph"] = gm, list(example_inputs)

        def run(*args):
            outs = held["graph"][0].forward(*args)
            held["outs"] = list(outs)
            return outs
        return run

    compiled = torch.compile(fn, backend=keep, fullgraph=True, dynamic=False)
    with torch.fx.experimental._config.patch(use_duck_shape=False), warnings.catch_warnings():  # pylint: disable=protected-access
        # the kernels' shape plans are lru_cached pure functions of shapes: tracing through is exact
        warnings.filterwarnings("ignore", message="Dynamo detected a call to a `functools.lru_cache`")
        SYMBOLIC_SIZES[0] = True  # Reshape computes its target on the symbolic sizes (keeps the batch free)
        UPDATE_IN_FORWARD[0] = True  # a training pass updates BatchNorm's moving averages in place
        try:
            results = compiled(*tensors)
        finally:
            SYMBOLIC_SIZES[0] = UPDATE_IN_FORWARD[0] = False
            torch._dynamo.eval_frame.remove_from_cache(fn)  # pylint: disable=protected-access
    (gm, example), outs = held.pop("graph"), held.pop("outs")
    where = []
    for r in results:
        found = [j for j, o in enumerate(outs) if o is r]
        if not found:
            raise MXNetError("export_torch: an output of the graph is not computed by it (an input passed through)")
        where.append(found[0])
    return gm, example, where


def _failed_node(graph, err):
    """' at node NAME (OP)' for the node whose kernel the capture failed in, from the line of
    the generated function in dynamo's error (or '' when it does not say)."""
    lines = _LINE.findall(str(err))
    src = graph.sources.get(False, "").split("\n")
    m = _NODE.match(src[int(lines[0]) - 1]) if lines and int(lines[0]) <= len(src) else None
    if m is None:
        return ""
    node = graph.order[int(m.group(1))]
    return " at node %s (%s)" % (node.name, node.op.name)


def _first_lines(err):
    text = str(err).strip().split("\n\n")[0]
    return " ".join(text.split("\n")[:6])


def _example(shape, dtype, dynamic):
    t = torch.zeros(tuple(shape), dtype=dtype)
    for d in dynamic(t.dim()):
        torch._dynamo.maybe_mark_dynamic(t, d)  # pylint: disable=protected-access
    return t


# the dimensions captured as symbolic, tried in turn: the first one (the batch), none (a kernel
# computing on a symbolic size with numpy fails the capture). All dimensions symbolic would
# write every kernel's output-size arithmetic into the module: correct, but hard to read.
_DYNAMIC = (lambda n: range(min(n, 1)), lambda n: ())


class TorchSource:
    """A graph captured into torch.fx and renamed for reading: ``source(class_name)`` is the
    module's Python source, ``state`` its state_dict (attribute -> tensor), ``fixed`` the
    input sizes the graph depends on (checked first by ``forward``)."""

    def __init__(self, graph, inputs, params, aux, fixed, mxnet_names, outputs):
        self.graph = graph
        self.inputs = inputs  # forward's argument names, in order
        self.params = params  # attribute -> tensor, nn.Parameter
        self.aux = aux  # attribute -> tensor, buffers (running statistics, constants)
        self.fixed = fixed  # input name -> (rank, [(dim, size) the capture fixed])
        self.mxnet_names = mxnet_names  # attribute -> MXNet name, where they differ
        self.outputs = outputs

    @property
    def state(self):
        return {k: _own(v) for k, v in list(self.params.items()) + list(self.aux.items())}

    def source(self, cls, doc="", train=None):
        """The module file: ``import torch``, one class ``cls``. With ``train`` (the
        TorchSource of the training pass), ``forward`` runs it when ``self.training``."""
        code = self.graph.python_code(root_module="self")
        imports = _imports(code, self.graph)
        body = _inline_attributes(code.src, set(self.params) | set(self.aux))
        params, aux = dict(self.params), dict(self.aux)
        if train is not None:
            tcode = train.graph.python_code(root_module="self")
            imports = sorted(set(imports) | set(_imports(tcode, train.graph)))
            aux.update({k: v for k, v in train.aux.items() if k not in aux})
            params.update({k: v for k, v in train.params.items() if k not in params})
            tbody = _inline_attributes(tcode.src, set(params) | set(aux))
        lines = ['"""%s"""' % doc.replace('"""', "'''") if doc else None, "import torch"] + imports
        lines += ["", "", "class %s(torch.nn.Module):" % cls]
        lines += ['    """%s"""' % _class_doc(self)]
        if self.mxnet_names:
            lines += ["", "    # attribute -> MXNet parameter name (where they differ)", "    MXNET_NAMES = {"]
            lines += ["        %r: %r," % kv for kv in sorted(self.mxnet_names.items())] + ["    }"]
        lines += ["", "    def __init__(self):", "        super().__init__()"]
        for k, v in params.items():
            lines.append("        self.%s = torch.nn.Parameter(%s)" % (k, _empty(v)))
        for k, v in aux.items():
            lines.append("        self.register_buffer(%r, %s)" % (k, _empty(v)))
        lines.append("")
        if train is None:
            lines += _forward(body, self)
        else:
            args = ", ".join(self.inputs)
            lines += ["    def forward(self, %s):" % args,
                      '        """The training pass (MXNet\'s is_train: Dropout on, BatchNorm on the batch\'s',
                      '        statistics, its running ones updated in place) when self.training, else the prediction."""',
                      "        if self.training:", "            return self.forward_train(%s)" % args,
                      "        return self.forward_predict(%s)" % args, ""]
            lines += _forward(body, self, "forward_predict") + [""] + _forward(tbody, train, "forward_train")
        return "\n".join(ln for ln in lines if ln is not None) + "\n"



def _own(t):
    """A tensor for the state_dict: detached, contiguous, copied only when it is a view of a
    larger storage (torch.save writes whole storages)."""
    t = t.detach().contiguous()
    return t.clone() if t.untyped_storage().nbytes() != t.numel() * t.element_size() else t


def _class_doc(src):
    ins = ", ".join(src.inputs)
    return "The MXNet graph's prediction as torch calls: forward(%s) -> %s." % (
        ins, src.outputs[0] if len(src.outputs) == 1 else "(" + ", ".join(src.outputs) + ")")


def _empty(t):
    return "torch.empty(%r, dtype=%s)" % (tuple(t.shape), str(t.dtype))


def _forward(body, src, name="forward"):
    """fx's ``def forward`` (renamed ``name``) with the checks of the fixed dimensions put first."""
    lines = body.strip("\n").split("\n")
    head, rest = lines[0].replace("def forward(", "def %s(" % name, 1), lines[1:]
    checks = []
    for name in src.inputs:
        fixed = src.fixed.get(name)
        if not fixed:
            continue
        rank, dims = fixed
        cond = ["%s.dim() != %d" % (name, rank)] + ["%s.shape[%d] != %d" % (name, d, s) for d, s in dims]
        want = ["N"] * rank
        for d, s in dims:
            want[d] = str(s)
        checks += ["        if %s:" % " or ".join(cond),
                   "            raise ValueError('%s: expected a shape (%s), got %%s' %% (tuple(%s.shape),))"
                   % (name, ", ".join(want) + ("," if rank == 1 else ""), name)]
    return ["    " + head.strip()] + checks + ["    " + ln if ln.strip() else ln for ln in rest]


def _imports(code, graph):
    """Import lines for the globals the generated code names besides ``torch``."""
    used = set(re.findall(r"[A-Za-z_]\w*", code.src))
    out = []
    for name, value in sorted(code.globals.items()):
        if name == "torch" or name not in used:
            continue
        if name in ("inf", "nan"):
            out.append("%s = float(%r)" % (name, name))
        elif value is torch.device:
            out.append("from torch import device")
        elif getattr(value, "__module__", None) in ("_operator", "operator", "math", "builtins"):
            module = "operator" if value.__module__ == "_operator" else value.__module__
            out.append("from %s import %s as %s" % (module, value.__name__, name))
        else:
            raise MXNetError("export_torch: the captured graph calls %r (%s), which is not a torch function; "
                             "nodes: %s" % (value, name, [n.format_node() for n in graph.nodes if name in str(n.target)]))
    return out


def _inline_attributes(src, attrs):
    """fx writes ``w = self.w`` then uses ``w``; write ``self.w`` where it is used instead,
    and keep the freeing of dead values (``; a = b = None``) to values that are not attributes."""
    out = []
    for line in src.split("\n"):
        m = re.match(r"^\s+(\w+) = self\.(\w+)$", line)
        if m and m.group(1) == m.group(2) and m.group(1) in attrs:
            continue
        stmt, sep, freed = line.partition(";  ")
        if sep:
            names = [n for n in freed[:-len(" = None")].split(" = ") if n not in attrs]
            line = stmt + (";  del %s" % ", ".join(names) if names else "")
        out.append(_public(_slices(_replace_names(line, attrs))))
    return "\n".join(out)


def _public(line):
    """``torch._C._nn.linear`` (where fx finds the function) -> ``torch.nn.functional.linear``,
    ``torch.functional.split`` -> ``torch.split``: the public spelling of the same function."""
    def spell(m):
        name = m.group(0)
        *path, last = name.split(".")[1:]
        if not any(p.startswith("_") or p == "functional" for p in path[:1]):
            return name
        obj = torch
        for part in path + [last]:
            obj = getattr(obj, part, None)
        for public, prefix in ((torch.nn.functional, "torch.nn.functional."), (torch, "torch.")):
            if obj is not None and getattr(public, last, None) is obj:
                return prefix + last
        return name
    return re.sub(r"\btorch(?:\.\w+)+", spell, line)


def _slices(line):
    """``x[(slice(None, None, None), 0)]`` (fx's spelling of an index) -> ``x[:, 0]``."""
    if "slice(" not in line:
        return line
    try:
        tree = ast.parse(line.strip())
    except SyntaxError:
        return line
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            index = node.slice
            items = index.elts if isinstance(index, ast.Tuple) else [index]
            items = [_slice(e) for e in items]
            node.slice = ast.Tuple(items, ast.Load()) if isinstance(index, ast.Tuple) else items[0]
    indent = line[:len(line) - len(line.lstrip())]
    return indent + ";  ".join(ast.unparse(stmt) for stmt in tree.body)


def _slice(node):
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "slice"
            and len(node.args) == 3 and not node.keywords):
        bounds = [None if isinstance(a, ast.Constant) and a.value is None else a for a in node.args]
        return ast.Slice(*bounds)
    return node


def _replace_names(line, attrs):
    """``name`` -> ``self.name`` for the attribute names (not after a dot, not in a string)."""
    parts = re.split(r"('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")", line)
    for k in range(0, len(parts), 2):
        parts[k] = re.sub(r"(?<![\w.])([A-Za-z_]\w*)(?!\w)",
                          lambda m: "self." + m.group(1) if m.group(1) in attrs else m.group(1), parts[k])
    return "".join(parts)


# ---------------------------------------------------------------------- renaming
def trace_torch(symbol, params, shapes, dtypes=None, is_train=False):
    """Capture ``symbol``'s prediction (its training pass with ``is_train``) on inputs of
    ``shapes`` (name -> shape, the inputs not in ``params``) into a :class:`TorchSource`.
    ``params``: name -> torch tensor."""
    graph = CompiledGraph(symbol)
    dtypes = dtypes or {}
    data_names = [n for n in graph.arg_names if n not in params]
    missing = [n for n in data_names if n not in shapes]
    if missing:
        raise MXNetError("export_torch: no example shape for the input(s) %s of the graph (its inputs besides "
                         "the parameters: %s)" % (", ".join(missing), ", ".join(data_names)))
    absent = [n for n in graph.aux_names if n not in params]
    if absent:
        raise MXNetError("export_torch: the auxiliary state(s) %s are not in the parameters" % ", ".join(absent))
    from torch._dynamo.exc import TorchDynamoException  # pylint: disable=import-outside-toplevel
    try:  # a user's wrong shape: the node and the shapes, as neogluon's inference says it
        symbol.infer_shape(**dict({n: tuple(params[n].shape) for n in graph.input_names if n in params},
                                  **{n: tuple(shapes[n]) for n in data_names}))
    except MXNetError as err:
        raise MXNetError("export_torch: the example shapes %s do not fit the graph: %s"
                         % (", ".join("%s=%s" % (n, tuple(shapes[n])) for n in data_names), err)) from None
    for dynamic in _DYNAMIC:
        graph = CompiledGraph(symbol)  # a new function: dynamo keeps nothing from a failed attempt
        # the training pass updates the moving averages as it is captured: on copies
        tensors = [(params[n].clone() if is_train and n in graph.aux_names else params[n]) if n in params
                   else _example(shapes[n], dtypes.get(n, torch.float32), dynamic) for n in graph.input_names]
        try:
            gm, example, where = _capture(graph.fn(is_train, tensors), tensors)
            break
        except (TorchDynamoException, RuntimeError, NotImplementedError) as err:
            error = err
    else:
        raise MXNetError("export_torch: the graph could not be captured into torch.fx%s: %s"
                         % (_failed_node(graph, error), _first_lines(error))) from None
    src = _Renamer(graph, tensors, data_names, "train_const" if is_train else "const", is_train).run(gm, example, where)
    for attr in src.aux:  # the states as given, not as the capture's run left them
        if src.mxnet_names.get(attr, attr) in graph.aux_names:
            src.aux[attr] = params[src.mxnet_names.get(attr, attr)]
    return src


class _Renamer:
    """Rebuilds dynamo's graph with readable names (see :func:`trace_torch`)."""

    def __init__(self, graph, tensors, data_names, const="const", is_train=False):
        self.graph = graph
        self.order = graph.order
        self.src_lines = graph.sources[is_train].split("\n")
        self.tensors = tensors
        self.data_names = data_names
        self.aux = set(graph.aux_names)
        self.taken = {"self", "torch", "device", "inf", "nan"}
        self.const = const + "%d"   # the name of the captured constants (distinct per captured pass)

    def name_of(self, node_name):
        out = identifier(node_name, self.taken)
        self.taken.add(out)
        return out

    def run(self, gm, example, where):
        new = torch.fx.Graph()
        env, params, aux, names = {}, {}, {}, {}
        phs = [n for n in gm.graph.nodes if n.op == "placeholder"]
        by_id = {id(t): k for k, t in enumerate(self.tensors)}
        inputs = {}
        for n in self.data_names:  # forward's arguments first, in the graph's order
            inputs[n] = new.placeholder(self.name_of(n))
        tensor_phs = [(ph, value) for ph, value in zip(phs, example) if isinstance(value, torch.Tensor)]
        const = 0
        for ph, value in tensor_phs:
            k = by_id.get(id(value))
            if k is not None and self.graph.input_names[k] in inputs:
                env[ph] = inputs[self.graph.input_names[k]]
                continue
            if k is not None:
                mx_name = self.graph.input_names[k]
                attr = self.name_of(mx_name)
            else:
                mx_name, attr = None, self.name_of(self.const % const)
                const += 1
            (aux if mx_name is None or mx_name in self.aux else params)[attr] = value
            if mx_name is not None and attr != mx_name:
                names[attr] = mx_name
            env[ph] = new.get_attr(attr)
        for attr in [n for n in gm.graph.nodes if n.op == "get_attr"]:
            value = getattr(gm, attr.target)
            name = self.name_of(self.const % const)
            const += 1
            aux[name] = value
            env[attr] = new.get_attr(name)
        sizes = self._sizes(phs, example, tensor_phs, env, new)
        env.update(sizes)
        owner = self._owners(gm)
        for node in gm.graph.nodes:
            if node.op in ("placeholder", "get_attr"):
                continue
            args = torch.fx.map_arg(node.args, env.__getitem__)
            kwargs = torch.fx.map_arg(node.kwargs, env.__getitem__)
            if node.op == "output":
                outs = [args[0][j] for j in where]
                new.output(outs[0] if len(outs) == 1 else tuple(outs))
                continue
            created = new.create_node(node.op, node.target, args, kwargs, name=self._value_name(node, owner))
            created.meta = dict(node.meta)
            env[node] = created
        _drop_dead_shape_code(new)
        fixed = self._fixed(tensor_phs, inputs, env)
        outputs = self.graph.output_names
        return TorchSource(new, [inputs[n].name for n in self.data_names], params, aux, fixed, names, outputs)

    def _sizes(self, phs, example, tensor_phs, env, new):
        """Dynamo passes the symbolic sizes as inputs: they become ``data.size(d)``."""
        out = {}
        for ph, value in zip(phs, example):
            if isinstance(value, torch.Tensor):
                continue
            sym = ph.meta.get("example_value")
            found = None
            for tph, _ in tensor_phs:
                shape = tph.meta["example_value"].shape
                for d, s in enumerate(shape):
                    if isinstance(s, torch.SymInt) and str(s) == str(sym):
                        found = (tph, d)
                        break
                if found:
                    break
            if found is None:
                raise MXNetError("export_torch: the captured graph takes a size %s that is no input's dimension"
                                 % sym)
            tph, d = found
            base = env[tph]
            out[ph] = new.call_method("size", (base, d))
            out[ph].name = "%s_size%d" % (base.name, d) if base.op == "placeholder" else out[ph].name
        return out

    def _fixed(self, tensor_phs, inputs, env):
        """Per input, its rank and the dimensions the capture fixed (not symbolic)."""
        fixed = {}
        for ph, _ in tensor_phs:
            target = env[ph]
            if target.op != "placeholder":
                continue
            shape = ph.meta["example_value"].shape
            dims = [(d, _concrete(s)) for d, s in enumerate(shape) if _concrete(s) is not None]
            fixed[target.name] = (len(shape), dims)
        return fixed

    def _owners(self, gm):
        """fx node -> position (in the executor's order) of the MXNet node whose kernel made it,
        from the line of the generated function in the node's stack trace."""
        owner = {}
        for node in gm.graph.nodes:
            lines = _LINE.findall(node.meta.get("stack_trace") or "")
            if not lines:
                continue
            src = self.src_lines[int(lines[-1]) - 1] if int(lines[-1]) <= len(self.src_lines) else ""
            m = _NODE.match(src)
            if m:
                owner[node] = int(m.group(1))
        return owner

    def _value_name(self, node, owner):
        """A value made by MXNet node ``conv0_fwd`` is named ``conv0_fwd`` when other nodes
        (or the output) read it, else ``conv0_fwd_<dynamo's name>`` (a step inside the kernel)."""
        k = owner.get(node)
        if k is None:
            return self.name_of(node.name)
        mx = self.order[k].name
        outside = any(owner.get(u) != k for u in node.users)
        return self.name_of(mx if outside else "%s_%s" % (mx, re.sub(r"_\d+$", "", node.name)))


def _concrete(size):
    """A captured size as an int when the capture fixed it (a guard specialised its symbol), else None."""
    if not isinstance(size, torch.SymInt):
        return int(size)
    return size.node.maybe_as_int()


def _drop_dead_shape_code(graph):
    """Remove unread values that are not tensors (the shape arithmetic of the kernels' checks,
    decided at capture); tensor operations are all kept (an in-place one has no reader)."""
    for node in reversed(list(graph.nodes)):
        if node.op in ("call_function", "call_method") and not node.users:
            value = node.meta.get("example_value")
            if not isinstance(value, torch.Tensor) and not _is_check(node):
                graph.erase_node(node)


def _is_check(node):
    return node.op == "call_function" and "assert" in getattr(node.target, "__name__", "")


# ---------------------------------------------------------------------- files
def _load(symbol, params):
    """(Symbol, name -> torch tensor) from a Symbol or -symbol.json path and a dict or .params path."""
    from .. import symbol as sym_mod  # pylint: disable=import-outside-toplevel
    from .. import ndarray as nd  # pylint: disable=import-outside-toplevel
    if isinstance(symbol, str):
        symbol = sym_mod.load(symbol)
    if isinstance(params, str):
        params = nd.load(params)
    out = {}
    for key, value in (params or {}).items():
        name = key.split(":", 1)[1] if key.startswith(("arg:", "aux:")) else key
        out[name] = value._t if hasattr(value, "_t") else torch.as_tensor(value)  # pylint: disable=protected-access
    return symbol, out


def export_torch(symbol, params, path, shapes, dtypes=None, name=None, exported_program=False, training=False):
    """Write ``path/<name>.py`` (the module's source), ``path/<name>.pt`` (its state_dict)
    and, with ``exported_program``, ``path/<name>.pt2`` (``torch.export`` on the examples).

    ``symbol``: a Symbol or a ``-symbol.json`` path; ``params``: name -> NDArray (``arg:`` /
    ``aux:`` prefixes allowed) or a ``.params`` path; ``shapes``: input name -> example shape
    (a plain shape or a list of them: the graph's inputs in order); ``dtypes``: input name ->
    dtype (default float32); ``name``: the model's name (default: the symbol file's, else
    ``model``); ``training``: also capture the training pass, which ``forward`` runs when
    the module is in training mode (Dropout on, BatchNorm on the batch's statistics, its
    running statistics updated in place as MXNet's momentum says: ``running * momentum +
    batch * (1 - momentum)``, the batch variance biased). Returns the paths written, ``{"py": ...,
    "pt": ..., "pt2": ...}``."""
    name = name or (_model_name(symbol) if isinstance(symbol, str) else "model")
    symbol, params = _load(symbol, params)
    data_names = [n for n in symbol.list_arguments() if n not in params]
    shapes = _shape_dict(shapes, data_names)
    dtypes = {k: _torch_dtype(v) for k, v in (dtypes or {}).items()}
    src = trace_torch(symbol, params, shapes, dtypes)
    train = trace_torch(symbol, params, shapes, dtypes, is_train=True) if training else None
    cls = class_name(name)
    doc = ("%s: the MXNet graph as a torch.nn.Module, written by neogluon's export_torch.\n\n"
           "    model = %s()\n    model.load_state_dict(torch.load(%r))\n    model.eval()\n"
           % (name, cls, name + ".pt"))
    os.makedirs(path, exist_ok=True)
    files = {"py": os.path.join(path, name + ".py"), "pt": os.path.join(path, name + ".pt")}
    text = src.source(cls, doc, train=train)
    try:
        compile(text, files["py"], "exec")
    except SyntaxError as err:  # a bug of the generator, said before anything is written
        raise MXNetError("export_torch: the generated source of %s does not compile: %s" % (files["py"], err)) from None
    with open(files["py"], "w", encoding="utf-8") as f:
        f.write(text)
    state = dict(train.state, **src.state) if train is not None else src.state
    torch.save(state, files["pt"])
    if exported_program:
        files["pt2"] = os.path.join(path, name + ".pt2")
        module = load_module(files["py"], cls)
        module.load_state_dict(state)
        module.requires_grad_(False)  # the program is for prediction
        examples = tuple(torch.zeros(tuple(shapes[n]), dtype=dtypes.get(n, torch.float32)) for n in data_names)
        try:
            program = torch.export.export(module.eval(), examples)
        except Exception as err:  # pylint: disable=broad-except
            raise MXNetError("export_torch: torch.export failed on %s: %s" % (files["py"], _first_lines(err))) from None
        torch.export.save(program, files["pt2"])
    return files


def load_module(path, cls=None):
    """The class ``cls`` (default: the only ``nn.Module`` class) of a generated file, instantiated."""
    import importlib.util  # pylint: disable=import-outside-toplevel
    spec = importlib.util.spec_from_file_location("_neogluon_export_%d" % abs(hash(path)), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if cls is None:
        cls = [k for k, v in vars(mod).items() if isinstance(v, type) and issubclass(v, torch.nn.Module)][0]
    return getattr(mod, cls)()


def _model_name(path):
    base = os.path.basename(path)
    return identifier(base[:-len("-symbol.json")] if base.endswith("-symbol.json") else os.path.splitext(base)[0])


def _shape_dict(shapes, data_names):
    if isinstance(shapes, dict):
        unknown = sorted(set(shapes) - set(data_names))
        if unknown:
            raise MXNetError("export_torch: %s is not an input of the graph (its inputs besides the parameters: %s)"
                             % (unknown[0], ", ".join(data_names)))
        return {k: tuple(v) for k, v in shapes.items()}
    shapes = list(shapes)
    if shapes and all(isinstance(d, int) for d in shapes):
        shapes = [shapes]
    if len(shapes) != len(data_names):
        raise MXNetError("export_torch: %d example shape(s) for %d input(s) (%s)"
                         % (len(shapes), len(data_names), ", ".join(data_names)))
    return {n: tuple(s) for n, s in zip(data_names, shapes)}


def _torch_dtype(dtype):
    if isinstance(dtype, torch.dtype):
        return dtype
    from ..base import torch_dtype  # pylint: disable=import-outside-toplevel
    return torch_dtype(dtype)
