"""MXNet's classic ``example/rnn/bucketing/lstm_bucketing.py`` on neogluon: a word-level
LSTM language model from the legacy symbolic API (``mx.rnn`` cells unrolled in a
``sym_gen``, ``mx.rnn.BucketSentenceIter``, ``mx.mod.BucketingModule``, ``Perplexity``),
on the sentences of a few public-domain passages instead of the Penn Treebank (every fifth
sentence held out; with ~1100 words most held-out words are rare, so the training
perplexity is the one to watch).

    python examples/lstm_bucketing.py                  # a few seconds on 2 CPU cores
    python examples/lstm_bucketing.py --num-epochs 20 --stack-rnn

The script is MXNet's, apart from where the text comes from: the same arguments
(``--num-layers``, ``--num-hidden``, ``--num-embed``, ``--buckets``, ``--lr``, ``--mom``,
``--wd``, ``--batch-size``, ...), the same cells, symbol and ``fit`` call.
"""
import argparse
import logging
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import neogluon as mx  # noqa: E402  pylint: disable=wrong-import-position

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "public_domain.txt")


def parser():
    p = argparse.ArgumentParser(description="Train RNN on the sentences of examples/data/public_domain.txt",
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument('--num-layers', type=int, default=2, help='number of stacked RNN layers')
    p.add_argument('--num-hidden', type=int, default=64, help='hidden layer size')
    p.add_argument('--num-embed', type=int, default=32, help='embedding layer size')
    p.add_argument('--buckets', type=str, default='8,16,24,32,48,64', help='bucket lengths')
    p.add_argument('--num-epochs', type=int, default=8, help='max num of epochs')
    p.add_argument('--lr', type=float, default=0.1, help='initial learning rate')
    p.add_argument('--optimizer', type=str, default='sgd', help='the optimizer type')
    p.add_argument('--mom', type=float, default=0.9, help='momentum for sgd')
    p.add_argument('--wd', type=float, default=0.00001, help='weight decay for sgd')
    p.add_argument('--batch-size', type=int, default=4, help='the batch size.')
    p.add_argument('--disp-batches', type=int, default=10, help='show progress for every n batches')
    p.add_argument('--stack-rnn', action='store_true', help='a FusedRNNCell unfused, instead of LSTMCells')
    return p


def tokenize_text(fname, vocab=None, invalid_label=-1, start_label=0):
    """Sentences of words (lower-cased, punctuation dropped), encoded with
    ``mx.rnn.encode_sentences`` as the original's PTB reader does."""
    with open(fname) as f:
        text = f.read().lower()
    sentences = [re.findall(r"[a-z']+", s) for s in re.split(r"[.;:?!]", text)]
    sentences = [s for s in sentences if len(s) > 1]
    return mx.rnn.encode_sentences(sentences, vocab=vocab, invalid_label=invalid_label, start_label=start_label)


def main(argv=None):
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format='%(asctime)-15s %(message)s')
    buckets = [int(i) for i in args.buckets.split(',')]
    invalid_label = 0
    sentences, vocab = tokenize_text(DATA, start_label=1, invalid_label=invalid_label)
    train_sent = [s for i, s in enumerate(sentences) if i % 5]
    val_sent = sentences[::5]
    data_train = mx.rnn.BucketSentenceIter(train_sent, args.batch_size, buckets=list(buckets),
                                           invalid_label=invalid_label)
    data_val = mx.rnn.BucketSentenceIter(val_sent, args.batch_size, buckets=list(buckets),
                                         invalid_label=invalid_label)

    if args.stack_rnn:
        stack = mx.rnn.FusedRNNCell(args.num_hidden, num_layers=args.num_layers, mode='lstm',
                                    prefix='lstm_').unfuse()
    else:
        stack = mx.rnn.SequentialRNNCell()
        for i in range(args.num_layers):
            stack.add(mx.rnn.LSTMCell(num_hidden=args.num_hidden, prefix='lstm_l%d_' % i))

    def sym_gen(seq_len):
        data = mx.sym.Variable('data')
        label = mx.sym.Variable('softmax_label')
        embed = mx.sym.Embedding(data=data, input_dim=len(vocab), output_dim=args.num_embed, name='embed')
        stack.reset()
        outputs, _ = stack.unroll(seq_len, inputs=embed, merge_outputs=True)
        pred = mx.sym.Reshape(outputs, shape=(-1, args.num_hidden))
        pred = mx.sym.FullyConnected(data=pred, num_hidden=len(vocab), name='pred')
        label = mx.sym.Reshape(label, shape=(-1,))
        pred = mx.sym.SoftmaxOutput(data=pred, label=label, name='softmax')
        return pred, ('data',), ('softmax_label',)

    model = mx.mod.BucketingModule(sym_gen=sym_gen, default_bucket_key=data_train.default_bucket_key,
                                   context=mx.cpu())
    history = []
    train_metric = mx.metric.Perplexity(invalid_label)

    def record(epoch, sym, arg, aux):
        history.append(train_metric.get()[1])
    model.fit(train_data=data_train, eval_data=data_val, eval_metric=train_metric,
              kvstore='local', optimizer=args.optimizer,
              optimizer_params={'learning_rate': args.lr, 'momentum': args.mom, 'wd': args.wd},
              initializer=mx.init.Xavier(factor_type="in", magnitude=2.34), num_epoch=args.num_epochs,
              epoch_end_callback=record,
              batch_end_callback=mx.callback.Speedometer(args.batch_size, args.disp_batches, auto_reset=False))
    print("training perplexity by epoch: " + ", ".join("%.1f" % h for h in history))
    return history


if __name__ == '__main__':
    main()
