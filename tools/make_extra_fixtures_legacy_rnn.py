"""Record MXNet 1.9.1's answers for the legacy symbolic ``mx.rnn`` API.

Run with the reference interpreter (never imported by neogluon or its tests)::

    /work/mx19/bin/python tools/make_extra_fixtures_legacy_rnn.py

Writes ``tests/fixtures/extra/legacy_rnn/``:

* ``cases.json``: for each graph of ``tests/legacy_rnn_cases.py`` (built by the same code on
  both sides) its JSON, ``list_arguments``/``list_outputs``/``list_auxiliary_states``,
  ``infer_shape`` over the data shapes, the cell's parameter names and ``state_info``, the
  names ``unpack_weights`` gives; for ``unfuse`` cases the same for the unfused stack.
  The JSON strings themselves are in ``graphs.json.gz``.
* ``<case>.npz``: for the arguments and head gradients ``lc.case_arrays`` draws (seeded by
  the case's name; numpy's legacy RandomState stream is the same on both sides), the
  outputs ``out:<i>`` of ``bind`` + ``forward`` (train mode where the case is
  deterministic, then ``backward``) and the gradients ``grad:<name>`` (of the data inputs
  only for the large graphs of MXNet's tests, of every argument for the others), the
  unpacked weights ``unpacked:<name>`` (small cases), and for unfuse cases the unfused
  stack's outputs ``unfused_out:<i>`` on the unpacked weights.
* ``misc.json``: ``encode_sentences`` answers, test_lstm_forget_bias's initial bias, the
  residual cells' ``eval`` with zero weights, errors of misuse.
* ``iter.json`` / ``bucketing.json`` / ``bucketing_init.params``: the batches of the
  synthetic corpus's ``BucketSentenceIter`` (seeded: both sides shuffle with python's and
  numpy's generators), and lstm_bucketing.py's ``fit`` on it: the initial parameters and
  the per-batch training and per-epoch validation perplexities.
* ``fused_bucketing.json`` / ``fused_bucketing_init.params`` / ``fused_bucketing-0002.params``
  / ``fused_bucketing-symbol.json``: cudnn_lstm_bucketing.py's pattern (a FusedRNNCell on
  'TN' batches, ``do_rnn_checkpoint`` every epoch, the last checkpoint loaded into the
  unfused stack and scored): per-batch perplexities, the checkpoint, the unfused score.
* ``ckpt-symbol.json`` / ``ckpt-0001.params``: ``save_rnn_checkpoint`` of a fused cell.
"""
import gzip
import json
import os
import shutil
import sys

os.environ.setdefault("MXNET_SUBGRAPH_VERBOSE", "0")

import numpy as np  # noqa: E402
import mxnet as mx  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import legacy_rnn_cases as lc  # noqa: E402  (takes the mx module as an argument)

OUT = os.path.join(HERE, "..", "tests", "fixtures", "extra", "legacy_rnn")


def jsonable(x):
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, dict):
        return {k: jsonable(v) for k, v in x.items()}
    return x


def graph_meta(case):
    sym, cell = case['sym'], case['cell']
    args, outs, auxs = sym.infer_shape(**case['shapes'])
    return dict(json=sym.tojson(), arguments=sym.list_arguments(), outputs=sym.list_outputs(),
                aux=sym.list_auxiliary_states(), shapes={k: list(v) for k, v in case['shapes'].items()},
                arg_shapes=jsonable(args), out_shapes=jsonable(outs), aux_shapes=jsonable(auxs),
                params=sorted(cell.params._params.keys()), state_info=jsonable(cell.state_info))


def run(sym, args, train, heads=None):
    """bind + forward (+ backward with ``heads``): (outputs, gradients)."""
    grads = {k: mx.nd.zeros(v.shape) for k, v in args.items()} if train else None
    exe = sym.bind(mx.cpu(), args={k: v.copy() for k, v in args.items()}, args_grad=grads,
                   grad_req='write' if train else 'null')
    exe.forward(is_train=train)
    outs = [o.asnumpy() for o in exe.outputs]
    if not train:
        return outs, {}
    exe.backward([mx.nd.array(h) for h in heads])
    return outs, {k: v.asnumpy() for k, v in grads.items()}


SMALL = 6000  # the largest parameter count of a case whose weights' gradients are stored


def record_case(name):
    case = lc.build(mx, name)
    meta = graph_meta(case)
    sym, cell = case['sym'], case['cell']
    arg_shapes = dict(zip(meta['arguments'], meta['arg_shapes']))
    np_args, heads = lc.case_arrays(name, arg_shapes, meta['out_shapes'])
    args = {k: mx.nd.array(v) for k, v in np_args.items()}
    train = case.get('train', True)
    outs, grads = run(sym, args, train, heads)
    arrays = {'out:%d' % i: o for i, o in enumerate(outs)}
    n_params = sum(int(np.prod(v.shape)) for k, v in np_args.items() if k in cell.params._params)
    small = n_params <= SMALL
    arrays.update({'grad:' + k: g for k, g in grads.items() if small or k in case['shapes']})
    params = {k: v for k, v in args.items() if k in cell.params._params}
    unpacked = cell.unpack_weights(params)
    meta['unpacked'] = sorted(unpacked)
    if small:
        arrays.update({'unpacked:' + k: v.asnumpy() for k, v in unpacked.items()})
    meta['train'] = train
    meta['small'] = small
    if 'unfused' in case:
        other = case['unfused']
        meta['unfused'] = graph_meta(other)
        stack_args = other['cell'].pack_weights(unpacked)
        stack_args['data'] = args['data']
        u_outs, _ = run(other['sym'], stack_args, False)
        arrays.update({'unfused_out:%d' % i: o for i, o in enumerate(u_outs)})
    np.savez_compressed(os.path.join(OUT, name + '.npz'), **arrays)
    return meta


def error_of(fn):
    try:
        fn()
    except Exception as e:  # pylint: disable=broad-except
        return [type(e).__name__, str(e).splitlines()[0] if str(e) else '']
    return None


def steps2():
    return [mx.sym.Variable('a'), mx.sym.Variable('b')]


def record_misc():
    sentences = [['a', 'b', 'c'], ['b', 'c', 'd']]
    misc = {}
    res, vocab = mx.rnn.io.encode_sentences(sentences, vocab={'a': 1, 'b': 2, 'c': 3}, invalid_label=-1,
                                            invalid_key='\n', start_label=0, unknown_token='UNK')
    misc['encode_known_vocab'] = [res, vocab]
    res, vocab = mx.rnn.encode_sentences(sentences, vocab=None, invalid_label=-1, invalid_key='\n',
                                         start_label=0, unknown_token='UNK')
    misc['encode_new_vocab_unk'] = [res, vocab]
    res, vocab = mx.rnn.encode_sentences(sentences + [['e', 'a']], invalid_label=0, start_label=0)
    misc['encode_new_vocab'] = [res, vocab]
    misc['encode_unknown_error'] = error_of(lambda: mx.rnn.encode_sentences([['z']], vocab={'a': 1}))

    # test_lstm_forget_bias
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.LSTMCell(100, forget_bias=2.0, prefix='l0_'))
    stack.add(mx.rnn.LSTMCell(100, forget_bias=2.0, prefix='l1_'))
    sym, _ = stack.unroll(1, mx.sym.Variable('data'), merge_outputs=True)
    mod = mx.mod.Module(sym, label_names=None, context=mx.cpu(0))
    mod.bind(data_shapes=[('data', (32, 1, 200))], label_shapes=None)
    mod.init_params()
    bias_name = next(x for x in sym.list_arguments() if x.endswith('i2h_bias'))
    misc['forget_bias'] = [bias_name, mod.get_params()[0][bias_name].asnumpy().tolist()]

    # test_residual / test_residual_bidirectional: eval with zero weights
    with mx.name.NameManager():
        case = lc.CASES['residual'](mx)
    out = case['sym'].eval(rnn_t0_data=mx.nd.ones((10, 50)), rnn_t1_data=mx.nd.ones((10, 50)),
                           rnn_i2h_weight=mx.nd.zeros((150, 50)), rnn_i2h_bias=mx.nd.zeros((150,)),
                           rnn_h2h_weight=mx.nd.zeros((150, 50)), rnn_h2h_bias=mx.nd.zeros((150,)))
    misc['residual_eval'] = [o.asnumpy().tolist()[0] for o in out]
    with mx.name.NameManager():
        case = lc.CASES['residual_bidirectional'](mx)
    out = case['sym'].eval(rnn_t0_data=mx.nd.ones((10, 50)) + 5, rnn_t1_data=mx.nd.ones((10, 50)) + 5,
                           rnn_l_i2h_weight=mx.nd.zeros((75, 50)), rnn_l_i2h_bias=mx.nd.zeros((75,)),
                           rnn_l_h2h_weight=mx.nd.zeros((75, 25)), rnn_l_h2h_bias=mx.nd.zeros((75,)),
                           rnn_r_i2h_weight=mx.nd.zeros((75, 50)), rnn_r_i2h_bias=mx.nd.zeros((75,)),
                           rnn_r_h2h_weight=mx.nd.zeros((75, 25)), rnn_r_h2h_bias=mx.nd.zeros((75,)))
    misc['residual_bidirectional_eval'] = [o.asnumpy().tolist()[0] for o in out]

    # misuse
    base = mx.rnn.RNNCell(4)
    mx.rnn.ZoneoutCell(base)
    misc['errors'] = {
        'modified_begin_state': error_of(base.begin_state),
        'fused_step': error_of(lambda: mx.rnn.FusedRNNCell(4)(mx.sym.Variable('x'), [])),
        'bidirectional_step': error_of(lambda: mx.rnn.BidirectionalCell(
            mx.rnn.RNNCell(2, prefix='a_'), mx.rnn.RNNCell(2, prefix='b_'))(mx.sym.Variable('x'), [])),
        'zoneout_fused': error_of(lambda: mx.rnn.ZoneoutCell(mx.rnn.FusedRNNCell(4))),
        'zoneout_sequential': error_of(lambda: mx.rnn.ZoneoutCell(mx.rnn.SequentialRNNCell())),
        'unroll_none': error_of(lambda: mx.rnn.RNNCell(4).unroll(3, None)),
        'conv_even_kernel': error_of(lambda: mx.rnn.ConvRNNCell((1, 2, 4, 4), 3, h2h_kernel=(2, 3))),
        'dropout_not_number': error_of(lambda: mx.rnn.DropoutCell('0.5')),
        'rnn_unroll': error_of(lambda: mx.rnn.rnn_unroll(mx.rnn.RNNCell(4), 2, steps2())),
        'iter_layout': error_of(lambda: mx.rnn.BucketSentenceIter([[1, 2]] * 4, 2, layout='TC')),
    }
    # a Group listing one graph entry twice (the last step's output and state of a stepped
    # cell): MXNet's backward takes the last head gradient of the entry
    x = mx.sym.Variable('x')
    y = mx.sym.tanh(x, name='t')
    gx = mx.nd.zeros((2,))
    exe = mx.sym.Group([y, y * 2, y]).bind(mx.cpu(), args={'x': mx.nd.array([0.1, 0.2])}, args_grad={'x': gx})
    exe.forward(is_train=True)
    exe.backward([mx.nd.array([1., 1.]), mx.nd.array([0., 0.]), mx.nd.array([10., 10.])])
    misc['duplicate_head_grad'] = gx.asnumpy().tolist()
    misc['fused_initializer'] = mx.rnn.FusedRNNCell(4, num_layers=2, mode='gru')._parameter.attr('__init__')
    return misc


def record_iter():
    """The batches of the seeded training iterator over two epochs (NT) and one (TN)."""
    data_train, _, vocab = lc.bucketing_iters(mx, 7)
    out = {'vocab': vocab, 'buckets': data_train.buckets, 'default_bucket_key': data_train.default_bucket_key,
           'provide_data': [list(d) for d in data_train.provide_data], 'epochs': []}
    for _ in range(2):
        batches = []
        for batch in data_train:
            batches.append([batch.bucket_key, batch.data[0].asnumpy().tolist(), batch.label[0].asnumpy().tolist(),
                            list(batch.provide_data[0].shape)])
        out['epochs'].append(batches)
        data_train.reset()
    import random
    random.seed(3)
    np.random.seed(3)
    train, _ = mx.rnn.encode_sentences(lc.corpus(40, 1), vocab=dict(vocab), invalid_label=0, start_label=1)
    it = mx.rnn.BucketSentenceIter(train, 4, invalid_label=0, layout='TN')
    out['tn'] = {'buckets': it.buckets, 'provide_data': [list(d) for d in it.provide_data],
                 'batches': [[b.bucket_key, b.data[0].asnumpy().tolist()] for b in it]}
    return out


def record_bucketing():
    data_train, _, vocab = lc.bucketing_iters(mx, 7)
    _, sym_gen = lc.bucketing_sym_gen(mx, len(vocab))
    mx.random.seed(11)
    mod = mx.mod.BucketingModule(sym_gen=sym_gen, default_bucket_key=data_train.default_bucket_key,
                                 context=mx.cpu())
    mod.bind(data_train.provide_data, data_train.provide_label)
    mod.init_params(initializer=mx.init.Xavier(factor_type="in", magnitude=2.34))
    init_args, _ = mod.get_params()
    mx.nd.save(os.path.join(OUT, 'bucketing_init.params'), init_args)
    _, batches, epochs, _ = lc.bucketing_fit(mx, arg_params=init_args)
    return {'batch_perplexity': batches, 'epoch_val_perplexity': epochs, 'params': sorted(init_args)}


def record_fused_bucketing():
    """cudnn_lstm_bucketing.py's pattern from MXNet's initial parameters (made here)."""
    data_train, _, vocab = lc.bucketing_iters(mx, 7, layout='TN')
    cell = mx.rnn.FusedRNNCell(lc.BUCKETING['num_hidden'], num_layers=lc.BUCKETING['num_layers'],
                               mode='lstm', prefix='lstm_')
    mx.random.seed(12)
    mod = mx.mod.BucketingModule(sym_gen=lc.fused_sym_gen(mx, cell, len(vocab)),
                                 default_bucket_key=data_train.default_bucket_key, context=mx.cpu())
    mod.bind(data_train.provide_data, data_train.provide_label)
    mod.init_params(initializer=mx.init.Xavier(factor_type="in", magnitude=2.34))
    init_args, _ = mod.get_params()
    mx.nd.save(os.path.join(OUT, 'fused_bucketing_init.params'), init_args)
    prefix = os.path.join(OUT, 'fused_bucketing')
    batches, score = lc.fused_bucketing(mx, prefix, arg_params=init_args)
    os.remove(prefix + '-0001.params')  # the last epoch's checkpoint is kept for the test
    return {'batch_perplexity': batches, 'unfused_val_perplexity': score, 'params': sorted(init_args)}


def record_checkpoint():
    cell = mx.rnn.FusedRNNCell(3, num_layers=1, mode='lstm', prefix='ck_')
    sym, _ = cell.unroll(2, mx.sym.Variable('data'), layout='TNC', merge_outputs=True)
    rng = np.random.RandomState(3)
    n = 4 * 3 * (2 + 3 + 2)
    args = {'ck_parameters': mx.nd.array(rng.uniform(-1, 1, (n,)).astype(np.float32))}
    mx.rnn.save_rnn_checkpoint(cell, os.path.join(OUT, 'ckpt'), 1, sym, args, {})
    np.savez(os.path.join(OUT, 'ckpt.npz'), parameters=args['ck_parameters'].asnumpy())


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    cases = {name: record_case(name) for name in lc.CASES}
    graphs = {name: meta.pop('json') for name, meta in cases.items()}
    graphs.update({name + '/unfused': meta['unfused'].pop('json') for name, meta in cases.items()
                   if 'unfused' in meta})
    with gzip.open(os.path.join(OUT, 'graphs.json.gz'), 'wt') as f:
        json.dump(graphs, f, sort_keys=True)
    with open(os.path.join(OUT, 'cases.json'), 'w') as f:
        json.dump(cases, f, sort_keys=True)
    with open(os.path.join(OUT, 'misc.json'), 'w') as f:
        json.dump(record_misc(), f, indent=1, sort_keys=True)
    with open(os.path.join(OUT, 'iter.json'), 'w') as f:
        json.dump(record_iter(), f, sort_keys=True)
    with open(os.path.join(OUT, 'bucketing.json'), 'w') as f:
        json.dump(record_bucketing(), f, indent=1, sort_keys=True)
    with open(os.path.join(OUT, 'fused_bucketing.json'), 'w') as f:
        json.dump(record_fused_bucketing(), f, indent=1, sort_keys=True)
    record_checkpoint()
    print('wrote', OUT)


if __name__ == '__main__':
    main()
