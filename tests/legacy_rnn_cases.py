"""The graphs of the legacy ``mx.rnn`` cells, defined once for both sides: each builder
takes the ``mx`` module (MXNet 1.9.1 in ``tools/make_extra_fixtures_legacy_rnn.py``,
neogluon in ``tests/test_legacy_rnn.py``) and returns the cell, the unrolled Symbol and the
shapes of its data inputs. The first cases are the graphs of MXNet 1.9.1's
``tests/python/unittest/test_rnn.py``; the others cover the remaining cell options.
Nothing here imports either library.
"""


def steps(mx, n, prefix='rnn_'):
    return [mx.sym.Variable('%st%d_data' % (prefix, i)) for i in range(n)]


def step_shapes(n, shape, prefix='rnn_'):
    return {'%st%d_data' % (prefix, i): shape for i in range(n)}


def _deprecated_cell_class(mx):
    """test_deprecated: a user cell subclassing BaseRNNCell, as in old scripts."""
    class RNNCell(mx.rnn.BaseRNNCell):
        def __init__(self, num_hidden, activation='tanh', prefix='rnn_', params=None):
            super(RNNCell, self).__init__(prefix=prefix, params=params)
            self._num_hidden = num_hidden
            self._activation = activation
            self._iW = self.params.get('i2h_weight')
            self._iB = self.params.get('i2h_bias')
            self._hW = self.params.get('h2h_weight')
            self._hB = self.params.get('h2h_bias')

        @property
        def state_info(self):
            return [{'shape': (0, self._num_hidden), '__layout__': 'NC'}]

        @property
        def _gate_names(self):
            return ('',)

        def __call__(self, inputs, states):
            self._counter += 1
            name = '%st%d_' % (self._prefix, self._counter)
            i2h = mx.symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB,
                                           num_hidden=self._num_hidden, name='%si2h' % name)
            h2h = mx.symbol.FullyConnected(data=states[0], weight=self._hW, bias=self._hB,
                                           num_hidden=self._num_hidden, name='%sh2h' % name)
            output = self._get_activation(i2h + h2h, self._activation, name='%sout' % name)
            return output, [output]
    return RNNCell


def unrolled(mx, cell, n, shape, **kwargs):
    outputs, states = cell.unroll(n, steps(mx, n), **kwargs)
    return dict(cell=cell, sym=mx.sym.Group(outputs), shapes=step_shapes(n, shape))


def merged(mx, cell, n, shape, layout='NTC', states=False, **kwargs):
    """Unrolled over one ``data`` Symbol with merged outputs (and the states, if asked)."""
    outputs, st = cell.unroll(n, mx.sym.Variable('data'), layout=layout, merge_outputs=True, **kwargs)
    flat = []
    for s in st:
        flat.extend(s if isinstance(s, list) else [s])
    sym = mx.sym.Group([outputs] + flat) if states else outputs
    return dict(cell=cell, sym=sym, shapes={'data': shape})


def fused(mx, mode, layers, bidirectional, dropout=0., **kwargs):
    return mx.rnn.FusedRNNCell(6, num_layers=layers, mode=mode, bidirectional=bidirectional,
                               dropout=dropout, prefix='test_%s_' % mode, **kwargs)


def conv(mx, cls, **kwargs):
    cell = getattr(mx.rnn, cls)(input_shape=(1, 3, 16, 10), num_hidden=10, h2h_kernel=(3, 3),
                                h2h_dilate=(1, 1), i2h_kernel=(3, 3), i2h_stride=(1, 1),
                                i2h_pad=(1, 1), i2h_dilate=(1, 1), prefix='rnn_', **kwargs)
    return unrolled(mx, cell, 3, (1, 3, 16, 10))


def stack(mx):
    cell = mx.rnn.SequentialRNNCell()
    for i in range(5):
        if i == 1:
            cell.add(mx.rnn.ResidualCell(mx.rnn.LSTMCell(100, prefix='rnn_stack%d_' % i)))
        else:
            cell.add(mx.rnn.LSTMCell(100, prefix='rnn_stack%d_' % i))
    return unrolled(mx, cell, 3, (10, 50))


def sequential_step(mx):
    """A SequentialRNNCell stepped by hand (``cell(x, states)``), as decoders do."""
    cell = mx.rnn.SequentialRNNCell()
    cell.add(mx.rnn.LSTMCell(8, prefix='l0_'))
    cell.add(mx.rnn.GRUCell(8, prefix='l1_'))
    states = cell.begin_state(func=mx.sym.Variable)
    outs = []
    for x in steps(mx, 2):
        out, states = cell(x, states)
        outs.append(out)
    shapes = step_shapes(2, (4, 5))
    shapes.update({'l0_begin_state_0': (4, 8), 'l0_begin_state_1': (4, 8), 'l1_begin_state_0': (4, 8)})
    return dict(cell=cell, sym=mx.sym.Group(outs + states), shapes=shapes)


def unfuse(mx, mode, dropout, train):
    """test_unfuse's cells (2 bidirectional layers; smaller here), unrolled over NTC data."""
    cell = fused(mx, mode, 2, True, dropout)
    stack_ = cell.unfuse()
    case = merged(mx, cell, 5, (3, 5, 7))
    other = merged(mx, stack_, 5, (3, 5, 7))
    case.update(unfused=other, train=train)
    return case


CASES = {
    # MXNet 1.9.1's tests/python/unittest/test_rnn.py
    'deprecated': lambda mx: unrolled(mx, _deprecated_cell_class(mx)(100, prefix='rnn_'), 3, (10, 50)),
    'rnn': lambda mx: unrolled(mx, mx.rnn.RNNCell(100, prefix='rnn_'), 3, (10, 50)),
    'lstm': lambda mx: unrolled(mx, mx.rnn.LSTMCell(100, prefix='rnn_', forget_bias=1.0), 3, (10, 50)),
    'gru': lambda mx: unrolled(mx, mx.rnn.GRUCell(100, prefix='rnn_'), 3, (10, 50)),
    'residual': lambda mx: unrolled(mx, mx.rnn.ResidualCell(mx.rnn.GRUCell(50, prefix='rnn_')), 2, (10, 50)),
    'residual_bidirectional': lambda mx: unrolled(
        mx, mx.rnn.ResidualCell(mx.rnn.BidirectionalCell(mx.rnn.GRUCell(25, prefix='rnn_l_'),
                                                          mx.rnn.GRUCell(25, prefix='rnn_r_'))),
        2, (10, 50), merge_outputs=False),
    'stack': stack,
    'bidirectional': lambda mx: unrolled(
        mx, mx.rnn.BidirectionalCell(mx.rnn.LSTMCell(100, prefix='rnn_l0_'),
                                     mx.rnn.LSTMCell(100, prefix='rnn_r0_'), output_prefix='rnn_bi_'),
        3, (10, 50)),
    'zoneout': lambda mx: dict(unrolled(mx, mx.rnn.ZoneoutCell(mx.rnn.RNNCell(100, prefix='rnn_'),
                                                               zoneout_outputs=0.5, zoneout_states=0.5),
                                        3, (10, 50)), train=False),
    'convrnn': lambda mx: conv(mx, 'ConvRNNCell'),
    'convlstm': lambda mx: conv(mx, 'ConvLSTMCell'),
    'convgru': lambda mx: conv(mx, 'ConvGRUCell'),
    'unfuse_rnn_tanh': lambda mx: unfuse(mx, 'rnn_tanh', 0.5, False),
    'unfuse_rnn_relu': lambda mx: unfuse(mx, 'rnn_relu', 0.5, False),
    'unfuse_lstm': lambda mx: unfuse(mx, 'lstm', 0.5, False),
    'unfuse_gru': lambda mx: unfuse(mx, 'gru', 0.5, False),
    # the other options
    'unfuse_lstm_train': lambda mx: unfuse(mx, 'lstm', 0., True),
    'unfuse_gru_train': lambda mx: unfuse(mx, 'gru', 0., True),
    'fused_lstm_tnc_states': lambda mx: merged(mx, fused(mx, 'lstm', 1, False, get_next_state=True),
                                               4, (4, 3, 5), layout='TNC', states=True),
    'fused_gru_states_list': lambda mx: dict(
        unrolled(mx, fused(mx, 'gru', 2, False, get_next_state=True), 3, (3, 5), merge_outputs=False)),
    'lstm_merged_ntc_states': lambda mx: merged(mx, mx.rnn.LSTMCell(6, prefix='lstm_'), 4, (3, 4, 5),
                                                states=True),
    'gru_merged_tnc': lambda mx: merged(mx, mx.rnn.GRUCell(6, prefix='gru_'), 4, (4, 3, 5), layout='TNC'),
    'rnn_relu_merged_states': lambda mx: merged(mx, mx.rnn.RNNCell(6, activation='relu', prefix='r_'),
                                                3, (2, 3, 5), states=True),
    'bidirectional_merged': lambda mx: merged(
        mx, mx.rnn.BidirectionalCell(mx.rnn.GRUCell(4, prefix='l_'), mx.rnn.LSTMCell(4, prefix='r_')),
        3, (2, 3, 5), states=True),
    'residual_merged': lambda mx: merged(mx, mx.rnn.ResidualCell(mx.rnn.RNNCell(5, prefix='res_')), 3, (2, 3, 5)),
    'dropout_stack': lambda mx: dict(merged(mx, _dropout_stack(mx), 3, (2, 3, 5)), train=False),
    'sequential_step': sequential_step,
    'convlstm_relu': lambda mx: conv(mx, 'ConvLSTMCell', activation='relu'),
}


def _dropout_stack(mx):
    cell = mx.rnn.SequentialRNNCell()
    cell.add(mx.rnn.LSTMCell(4, prefix='a_'))
    cell.add(mx.rnn.DropoutCell(0.5, prefix='drop_'))
    cell.add(mx.rnn.GRUCell(4, prefix='b_'))
    return cell


def case_arrays(name, arg_shapes, out_shapes):
    """The seeded arguments (name -> float32 array) and head gradients of case ``name``."""
    import zlib
    import numpy as np
    rng = np.random.RandomState(zlib.crc32(name.encode()))
    args = {k: rng.uniform(-0.5, 0.5, tuple(s)).astype(np.float32) for k, s in arg_shapes.items()}
    heads = [rng.uniform(-1, 1, tuple(s)).astype(np.float32) for s in out_shapes]
    return args, heads


def build(mx, name):
    """Case ``name`` built by ``mx`` under a fresh NameManager (so auto names start at 0)."""
    with mx.name.NameManager():
        return CASES[name](mx)


# ------------------------------------------------------------------ the bucketing example
# MXNet's example/rnn/bucketing/lstm_bucketing.py on a small synthetic corpus
BUCKETING = dict(num_layers=2, num_hidden=16, num_embed=8, batch_size=8, buckets=[4, 8, 12],
                 num_epochs=3, lr=0.1, mom=0.9, wd=0.00001, invalid_label=0, start_label=1)


def corpus(n_sentences, seed):
    """Synthetic sentences with structure an LSTM can learn: each sentence counts up from a
    random word, modulo a vocabulary of 20 words, lengths 2..12."""
    import random
    rng = random.Random(seed)
    words = ['w%d' % i for i in range(20)]
    out = []
    for _ in range(n_sentences):
        start, length = rng.randrange(20), rng.randrange(2, 13)
        out.append([words[(start + k) % 20] for k in range(length)])
    return out


def bucketing_sym_gen(mx, vocab_size):
    """The cells and ``sym_gen`` of lstm_bucketing.py."""
    p = BUCKETING
    stack_ = mx.rnn.SequentialRNNCell()
    for i in range(p['num_layers']):
        stack_.add(mx.rnn.LSTMCell(num_hidden=p['num_hidden'], prefix='lstm_l%d_' % i))

    def sym_gen(seq_len):
        data = mx.sym.Variable('data')
        label = mx.sym.Variable('softmax_label')
        embed = mx.sym.Embedding(data=data, input_dim=vocab_size, output_dim=p['num_embed'], name='embed')
        stack_.reset()
        outputs, _ = stack_.unroll(seq_len, inputs=embed, merge_outputs=True)
        pred = mx.sym.Reshape(outputs, shape=(-1, p['num_hidden']))
        pred = mx.sym.FullyConnected(data=pred, num_hidden=vocab_size, name='pred')
        label = mx.sym.Reshape(label, shape=(-1,))
        pred = mx.sym.SoftmaxOutput(data=pred, label=label, name='softmax')
        return pred, ('data',), ('softmax_label',)
    return stack_, sym_gen


def bucketing_iters(mx, seed, layout='NT'):
    """Train and validation BucketSentenceIter over the synthetic corpus; python's and
    numpy's generators seeded first, as both iterators shuffle with them."""
    import random
    import numpy as np
    p = BUCKETING
    random.seed(seed)
    np.random.seed(seed)
    train, vocab = mx.rnn.encode_sentences(corpus(200, 1), invalid_label=p['invalid_label'],
                                           start_label=p['start_label'])
    val, _ = mx.rnn.encode_sentences(corpus(60, 2), vocab=vocab, invalid_label=p['invalid_label'],
                                     start_label=p['start_label'])
    data_train = mx.rnn.BucketSentenceIter(train, p['batch_size'], buckets=list(p['buckets']),
                                           invalid_label=p['invalid_label'], layout=layout)
    data_val = mx.rnn.BucketSentenceIter(val, p['batch_size'], buckets=list(p['buckets']),
                                         invalid_label=p['invalid_label'], layout=layout)
    return data_train, data_val, vocab


def bucketing_fit(mx, arg_params=None, seed=7):
    """Run lstm_bucketing.py's ``fit``; returns (module, per-batch train perplexity,
    per-epoch validation perplexity, vocab)."""
    import random
    import numpy as np
    p = BUCKETING
    data_train, data_val, vocab = bucketing_iters(mx, seed)
    _, sym_gen = bucketing_sym_gen(mx, len(vocab))
    model = mx.mod.BucketingModule(sym_gen=sym_gen, default_bucket_key=data_train.default_bucket_key,
                                   context=mx.cpu())
    batches, epochs = [], []

    def on_batch(param):
        batches.append(param.eval_metric.get()[1])

    def on_epoch(epoch, sym, arg, aux):
        epochs.append(model.score(data_val, mx.metric.Perplexity(p['invalid_label']))[0][1])

    random.seed(seed)
    np.random.seed(seed)
    model.fit(train_data=data_train, eval_metric=mx.metric.Perplexity(p['invalid_label']),
              optimizer='sgd', optimizer_params={'learning_rate': p['lr'], 'momentum': p['mom'], 'wd': p['wd']},
              initializer=mx.init.Xavier(factor_type="in", magnitude=2.34), arg_params=arg_params,
              num_epoch=p['num_epochs'], batch_end_callback=on_batch, epoch_end_callback=on_epoch)
    return model, batches, epochs, vocab


def fused_sym_gen(mx, cell, vocab_size):
    """cudnn_lstm_bucketing.py's ``sym_gen``: a FusedRNNCell (or its unfused stack)
    unrolled over time-major ('TNC') embeddings."""
    p = BUCKETING

    def sym_gen(seq_len):
        data = mx.sym.Variable('data')
        label = mx.sym.Variable('softmax_label')
        embed = mx.sym.Embedding(data=data, input_dim=vocab_size, output_dim=p['num_embed'], name='embed')
        cell.reset()
        output, _ = cell.unroll(seq_len, inputs=embed, merge_outputs=True, layout='TNC')
        pred = mx.sym.Reshape(output, shape=(-1, p['num_hidden']))
        pred = mx.sym.FullyConnected(data=pred, num_hidden=vocab_size, name='pred')
        label = mx.sym.Reshape(label, shape=(-1,))
        pred = mx.sym.SoftmaxOutput(data=pred, label=label, name='softmax')
        return pred, ('data',), ('softmax_label',)
    return sym_gen


def fused_bucketing(mx, prefix, arg_params=None, seed=7, epochs=2):
    """example/rnn/bucketing/cudnn_lstm_bucketing.py: train a FusedRNNCell LSTM on 'TN'
    batches, checkpointing every epoch with ``do_rnn_checkpoint`` (weights unpacked); then,
    as its ``test()`` does on CPU, load the last checkpoint into the unfused stack
    (``load_rnn_checkpoint`` packs the weights for it) and score the validation set.
    Returns (per-batch training perplexity, the unfused model's validation perplexity)."""
    import random
    import numpy as np
    p = BUCKETING
    data_train, data_val, vocab = bucketing_iters(mx, seed, layout='TN')
    cell = mx.rnn.FusedRNNCell(p['num_hidden'], num_layers=p['num_layers'], mode='lstm', prefix='lstm_')
    model = mx.mod.BucketingModule(sym_gen=fused_sym_gen(mx, cell, len(vocab)),
                                   default_bucket_key=data_train.default_bucket_key, context=mx.cpu())
    batches = []
    random.seed(seed)
    np.random.seed(seed)
    model.fit(train_data=data_train, eval_metric=mx.metric.Perplexity(p['invalid_label']),
              optimizer='sgd', optimizer_params={'learning_rate': p['lr'], 'momentum': p['mom'], 'wd': p['wd']},
              initializer=mx.init.Xavier(factor_type="in", magnitude=2.34), arg_params=arg_params,
              num_epoch=epochs, batch_end_callback=lambda param: batches.append(param.eval_metric.get()[1]),
              epoch_end_callback=mx.rnn.do_rnn_checkpoint(cell, prefix, 1))
    stack = cell.unfuse()
    _, arg, aux = mx.rnn.load_rnn_checkpoint(stack, prefix, epochs)
    test = mx.mod.BucketingModule(sym_gen=fused_sym_gen(mx, stack, len(vocab)),
                                  default_bucket_key=data_val.default_bucket_key, context=mx.cpu())
    test.bind(data_val.provide_data, data_val.provide_label, for_training=False)
    test.set_params(arg, aux)
    score = test.score(data_val, mx.metric.Perplexity(p['invalid_label']))[0][1]
    return batches, score
