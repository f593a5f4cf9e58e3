"""More of d2l 1.0.3's MXNet edition, the chapters after the core ones (computer vision,
NLP pretraining and applications, GANs, recommender systems, computational performance),
run as the book's MXNet notebooks run them, on small synthetic data with the data readers
replaced by in-memory ones. Each workflow returns {name: numpy array} of deterministic
numbers, like ``d2l_workflows``: recorded under MXNet 1.9.1 by
``tools/make_client_fixtures_d2l.py``, checked under neogluon by ``tests/test_client_d2l.py``."""
import os
import random

import numpy as onp

from d2l_workflows import _arr, _out, _setp, _setup

os.environ.setdefault("MPLBACKEND", "Agg")


def _devices():
    import mxnet as mx
    return [mx.cpu(0), mx.cpu(1)]


def _loader(gluon, arrays, batch_size):
    return gluon.data.DataLoader(gluon.data.ArrayDataset(*arrays), batch_size, shuffle=False)


def _quiet(fn, *args, **kwargs):
    import contextlib
    import io
    with contextlib.redirect_stdout(io.StringIO()):
        return fn(*args, **kwargs)


def finetune_augment():
    """Chapter 14.1-14.2: image augmentation with gluon.data.vision.transforms
    (deterministic ones compared, random ones checked for shape), then fine-tuning: a
    model-zoo-like net whose output layer is replaced, lr_mult on the new layer, train_ch13
    on [cpu(0), cpu(1)] and evaluate_accuracy_gpus."""
    d2l, np, npx = _setup()
    from mxnet import gluon, init, image
    from mxnet.gluon import nn
    from mxnet.gluon.data.vision import transforms
    res = {}
    img = np.array(onp.random.RandomState(1).randint(0, 256, size=(10, 12, 3)).astype("uint8"))
    normalize = transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
    test_augs = transforms.Compose([transforms.Resize(8), transforms.CenterCrop(6), transforms.ToTensor(),
                                    normalize])
    _out(res, "test_augs", test_augs(img))
    _out(res, "flip_lr", transforms.RandomFlipLeftRight()(img).shape)
    train_augs = transforms.Compose([transforms.RandomResizedCrop(6), transforms.RandomFlipLeftRight(),
                                     transforms.RandomColorJitter(brightness=0.5, contrast=0.5, saturation=0.5,
                                                                  hue=0.5),
                                     transforms.RandomLighting(0.1), transforms.ToTensor(), normalize])
    _out(res, "train_augs_shape", train_augs(img).shape)
    _out(res, "imresize", image.imresize(img, 5, 4))

    imgs = [np.array(onp.random.RandomState(10 + i).randint(0, 256, size=(10, 12, 3)).astype("uint8"))
            for i in range(20)]
    labels = [i % 2 for i in range(20)]
    dataset = gluon.data.ArrayDataset(imgs, labels)
    train_iter = gluon.data.DataLoader(dataset.transform_first(test_augs), 4, shuffle=False)
    test_iter = gluon.data.DataLoader(dataset.transform_first(test_augs), 8)

    class ZooNet(nn.HybridBlock):
        def __init__(self, classes):
            super().__init__()
            self.features = nn.HybridSequential()
            self.features.add(nn.Conv2D(8, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                              nn.MaxPool2D(2), nn.Conv2D(8, 3, padding=1), nn.GlobalAvgPool2D(), nn.Flatten())
            self.output = nn.Dense(classes)

        def forward(self, x):
            return self.output(self.features(x))
    pretrained_net = ZooNet(10)
    pretrained_net.initialize()
    pretrained_net(np.zeros((1, 3, 6, 6)))
    _setp(np, pretrained_net, 2)
    finetune_net = ZooNet(2)
    finetune_net.features = pretrained_net.features
    finetune_net.output.initialize(init.Xavier())
    finetune_net.output(np.zeros((1, 8)))
    _setp(np, finetune_net.output, 3)
    finetune_net.output.collect_params().setattr('lr_mult', 10)
    devices = _devices()
    finetune_net.collect_params().reset_ctx(devices)
    finetune_net.hybridize()
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(finetune_net.collect_params(), 'sgd', {'learning_rate': 0.01, 'wd': 0.001})
    _quiet(d2l.train_ch13, finetune_net, train_iter, test_iter, loss, trainer, 2, devices)
    _out(res, "finetune_output_w", finetune_net.output.weight.data(devices[1]))
    _out(res, "finetune_conv_w", finetune_net.features[0].weight.data()[:2])
    _out(res, "finetune_running_mean", finetune_net.features[1].running_mean.data(devices[0]))
    _out(res, "finetune_acc", d2l.evaluate_accuracy_gpus(finetune_net, test_iter))
    X, _ = next(iter(test_iter))
    _out(res, "finetune_pred", finetune_net(X.as_in_ctx(devices[1])))
    res["finetune_dense_params"] = onp.array([len(finetune_net.collect_params('.*dense').keys()),
                                              len(finetune_net.output.collect_params('.*weight').keys())], onp.float64)
    return res


def _bilinear_kernel(np, in_channels, out_channels, kernel_size):
    factor = (kernel_size + 1) // 2
    if kernel_size % 2 == 1:
        center = factor - 1
    else:
        center = factor - 0.5
    og = (np.arange(kernel_size).reshape(-1, 1), np.arange(kernel_size).reshape(1, -1))
    filt = (1 - np.abs(og[0] - center) / factor) * (1 - np.abs(og[1] - center) / factor)
    weight = np.zeros((in_channels, out_channels, kernel_size, kernel_size))
    weight[range(in_channels), range(out_channels), :, :] = filt
    return np.array(weight)


def fcn_segmentation():
    """Chapter 14.9-14.11: VOCSegDataset over in-memory images (voc_colormap2label,
    voc_label_indices, voc_rand_crop at full size), an FCN whose Conv2DTranspose is
    initialized with a bilinear kernel through init.Constant, trained with
    SoftmaxCrossEntropyLoss(axis=1) by train_ch13 on two CPU contexts, and the book's predict."""
    d2l, np, npx = _setup()
    from mxnet import gluon, image, init
    from mxnet.gluon import nn
    res = {}
    rng = onp.random.RandomState(1)
    cmap = onp.array(d2l.VOC_COLORMAP, dtype="uint8")
    features, labels = [], []
    for i in range(10):
        features.append(np.array(rng.randint(0, 256, size=(16, 16, 3)).astype("uint8")))
        labels.append(np.array(cmap[rng.randint(0, 21, size=(16, 16))]))
    orig = d2l.read_voc_images
    d2l.read_voc_images = lambda voc_dir, is_train=True: (features, labels) if is_train else (features[:4],
                                                                                              labels[:4])
    try:
        train_set = _quiet(d2l.VOCSegDataset, True, (16, 16), "unused")
        test_set = _quiet(d2l.VOCSegDataset, False, (16, 16), "unused")
    finally:
        d2l.read_voc_images = orig
    f0, l0 = train_set[0]
    _out(res, "voc_feature", f0[:, :2, :3])
    _out(res, "voc_label", l0)
    crop_f, rect = image.random_crop(features[1], (6, 5))
    _out(res, "random_crop_shape", crop_f.shape)
    _out(res, "fixed_crop", image.fixed_crop(labels[1], 2, 3, 4, 5)[..., 0])
    train_iter = gluon.data.DataLoader(train_set, 2, shuffle=False, last_batch='discard')
    test_iter = gluon.data.DataLoader(test_set, 4, last_batch='discard')

    num_classes = 21
    net = nn.HybridSequential()
    net.add(nn.Conv2D(8, 3, padding=1, activation="relu"), nn.Conv2D(8, 3, strides=2, padding=1),
            nn.Conv2D(num_classes, kernel_size=1),
            nn.Conv2DTranspose(num_classes, kernel_size=4, padding=1, strides=2))
    conv_trans = nn.Conv2DTranspose(3, kernel_size=4, padding=1, strides=2)
    conv_trans.initialize(init.Constant(_bilinear_kernel(np, 3, 3, 4)))
    _out(res, "bilinear_upsample", conv_trans(np.expand_dims(features[0].transpose(2, 0, 1), 0).astype("float32"))
         [0, :, :3, :4])
    W = _bilinear_kernel(np, num_classes, num_classes, 4)
    net[-1].initialize(init.Constant(W))
    net[-2].initialize(init=init.Xavier())
    net[:2].initialize()
    net(np.zeros((1, 3, 16, 16)))
    _setp(np, net[:3], 2, 0.2)
    devices = _devices()
    net.collect_params().reset_ctx(devices)
    loss = gluon.loss.SoftmaxCrossEntropyLoss(axis=1)
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1, 'wd': 1e-3})
    _quiet(d2l.train_ch13, net, train_iter, test_iter, loss, trainer, 1, devices)
    _out(res, "fcn_trans_w", net[-1].weight.data()[:2, :2])
    _out(res, "fcn_acc", d2l.evaluate_accuracy_gpus(net, test_iter))

    def predict(img):
        X = np.expand_dims(test_set.normalize_image(img).transpose(2, 0, 1), axis=0)
        pred = net(X.as_in_ctx(devices[0])).argmax(axis=1)
        return pred.reshape(pred.shape[1], pred.shape[2])

    def label2image(pred):
        colormap = np.array(d2l.VOC_COLORMAP, ctx=devices[0], dtype='uint8')
        X = pred.astype('int32')
        return colormap[X, :]
    _out(res, "fcn_predict", label2image(predict(features[2]))[:4, :4])
    return res


def style_transfer():
    """Chapter 14.12: a Block whose parameter is the image (SynthesizedImage), content and
    style features from a small conv net, Gram matrices, content/style/TV losses, Adam on
    the image with set_learning_rate."""
    d2l, np, npx = _setup()
    from mxnet import autograd, gluon, init
    from mxnet.gluon import nn
    res = {}
    rgb_mean = np.array([0.485, 0.456, 0.406])
    rgb_std = np.array([0.229, 0.224, 0.225])

    def preprocess(img, image_shape):
        img = gluon.data.vision.transforms.Resize(image_shape)(img)  # Resize takes (w, h)
        img = (img.astype('float32') / 255 - rgb_mean) / rgb_std
        return np.expand_dims(img.transpose(2, 0, 1), axis=0)

    def postprocess(img):
        img = img[0].as_in_ctx(rgb_std.ctx)
        return (img.transpose(1, 2, 0) * rgb_std + rgb_mean).clip(0, 1)
    pretrained = nn.Sequential()
    for c in (8, 8, 16, 16, 16):
        pretrained.add(nn.Conv2D(c, 3, padding=1, activation="relu"))
    pretrained.initialize()
    pretrained(np.zeros((1, 3, 12, 12)))
    _setp(np, pretrained, 1, 0.3)
    style_layers, content_layers = [0, 2, 4], [3]
    net = nn.Sequential()
    for i in range(max(content_layers + style_layers) + 1):
        net.add(pretrained[i])

    def extract_features(X, content_layers, style_layers):
        contents, styles = [], []
        for i in range(len(net)):
            X = net[i](X)
            if i in style_layers:
                styles.append(X)
            if i in content_layers:
                contents.append(X)
        return contents, styles

    content_img = np.array(onp.random.RandomState(2).randint(0, 256, size=(14, 16, 3)).astype("uint8"))
    style_img = np.array(onp.random.RandomState(3).randint(0, 256, size=(14, 16, 3)).astype("uint8"))
    image_shape = (12, 10)
    device = d2l.try_gpu()
    content_X = preprocess(content_img, image_shape).copyto(device)
    contents_Y, _ = extract_features(content_X, content_layers, style_layers)
    style_X = preprocess(style_img, image_shape).copyto(device)
    _, styles_Y = extract_features(style_X, content_layers, style_layers)

    def content_loss(Y_hat, Y):
        return np.square(Y_hat - Y).mean()

    def gram(X):
        num_channels, n = X.shape[1], d2l.size(X) // X.shape[1]
        X = X.reshape((num_channels, n))
        return np.dot(X, X.T) / (num_channels * n)

    def style_loss(Y_hat, gram_Y):
        return np.square(gram(Y_hat) - gram_Y).mean()

    def tv_loss(Y_hat):
        return 0.5 * (np.abs(Y_hat[:, :, 1:, :] - Y_hat[:, :, :-1, :]).mean() +
                      np.abs(Y_hat[:, :, :, 1:] - Y_hat[:, :, :, :-1]).mean())
    content_weight, style_weight, tv_weight = 1, 1e3, 10

    def compute_loss(X, contents_Y_hat, styles_Y_hat, contents_Y, styles_Y_gram):
        contents_l = [content_loss(Y_hat, Y) * content_weight for Y_hat, Y in zip(contents_Y_hat, contents_Y)]
        styles_l = [style_loss(Y_hat, Y) * style_weight for Y_hat, Y in zip(styles_Y_hat, styles_Y_gram)]
        tv_l = tv_loss(X) * tv_weight
        l = sum(styles_l + contents_l + [tv_l])
        return contents_l, styles_l, tv_l, l

    class SynthesizedImage(nn.Block):
        def __init__(self, img_shape, **kwargs):
            super(SynthesizedImage, self).__init__(**kwargs)
            self.weight = self.params.get('weight', shape=img_shape)

        def forward(self):
            return self.weight.data()

    def get_inits(X, device, lr, styles_Y):
        gen_img = SynthesizedImage(X.shape)
        gen_img.initialize(init.Constant(X), ctx=device, force_reinit=True)
        trainer = gluon.Trainer(gen_img.collect_params(), 'adam', {'learning_rate': lr})
        styles_Y_gram = [gram(Y) for Y in styles_Y]
        return gen_img(), styles_Y_gram, trainer

    X, styles_Y_gram, trainer = get_inits(content_X, device, 0.9, styles_Y)
    losses = []
    for epoch in range(4):
        with autograd.record():
            contents_Y_hat, styles_Y_hat = extract_features(X, content_layers, style_layers)
            contents_l, styles_l, tv_l, l = compute_loss(X, contents_Y_hat, styles_Y_hat, contents_Y,
                                                         styles_Y_gram)
        l.backward()
        trainer.step(1)
        npx.waitall()
        if epoch == 2:
            trainer.set_learning_rate(trainer.learning_rate * 0.8)
        losses.append([float(sum(contents_l)), float(sum(styles_l)), float(tv_l)])
    res["style_losses"] = onp.array(losses, onp.float64)
    _out(res, "style_gram", styles_Y_gram[0])
    _out(res, "style_image", postprocess(X)[:3, :3])
    return res


def ssd():
    """Chapter 14.7: the book's TinySSD (down_sample_blk, class and box predictors,
    multibox_prior per scale, flatten/concat of predictions) on 64x64 images, one SGD step
    with multibox_target and the book's calc_loss/cls_eval/bbox_eval, then predict with
    softmax and multibox_detection (d2l's, with d2l.nms) and npx's."""
    d2l, np, npx = _setup()
    from mxnet import autograd, gluon
    from mxnet.gluon import nn
    res = {}

    def cls_predictor(num_anchors, num_classes):
        return nn.Conv2D(num_anchors * (num_classes + 1), kernel_size=3, padding=1)

    def bbox_predictor(num_anchors):
        return nn.Conv2D(num_anchors * 4, kernel_size=3, padding=1)

    def flatten_pred(pred):
        return npx.batch_flatten(pred.transpose(0, 2, 3, 1))

    def concat_preds(preds):
        return np.concatenate([flatten_pred(p) for p in preds], axis=1)

    def down_sample_blk(num_channels):
        blk = nn.Sequential()
        for _ in range(2):
            blk.add(nn.Conv2D(num_channels, kernel_size=3, padding=1), nn.BatchNorm(in_channels=num_channels),
                    nn.Activation('relu'))
        blk.add(nn.MaxPool2D(2))
        return blk

    def base_net():
        blk = nn.Sequential()
        for num_filters in [4, 8, 8]:
            blk.add(down_sample_blk(num_filters))
        return blk

    def get_blk(i):
        if i == 0:
            return base_net()
        if i == 4:
            return nn.GlobalMaxPool2D()
        return down_sample_blk(8)

    sizes = [[0.2, 0.272], [0.37, 0.447], [0.54, 0.619], [0.71, 0.79], [0.88, 0.961]]
    ratios = [[1, 2, 0.5]] * 5
    num_anchors = len(sizes[0]) + len(ratios[0]) - 1

    def blk_forward(X, blk, size, ratio, cls_predictor, bbox_predictor):
        Y = blk(X)
        anchors = d2l.multibox_prior(Y, sizes=size, ratios=ratio)
        return (Y, anchors, cls_predictor(Y), bbox_predictor(Y))

    class TinySSD(nn.Block):
        def __init__(self, num_classes, **kwargs):
            super(TinySSD, self).__init__(**kwargs)
            self.num_classes = num_classes
            for i in range(5):
                setattr(self, f'blk_{i}', get_blk(i))
                setattr(self, f'cls_{i}', cls_predictor(num_anchors, num_classes))
                setattr(self, f'bbox_{i}', bbox_predictor(num_anchors))

        def forward(self, X):
            anchors, cls_preds, bbox_preds = [None] * 5, [None] * 5, [None] * 5
            for i in range(5):
                X, anchors[i], cls_preds[i], bbox_preds[i] = blk_forward(
                    X, getattr(self, f'blk_{i}'), sizes[i], ratios[i], getattr(self, f'cls_{i}'),
                    getattr(self, f'bbox_{i}'))
            anchors = np.concatenate(anchors, axis=1)
            cls_preds = concat_preds(cls_preds)
            cls_preds = cls_preds.reshape(cls_preds.shape[0], -1, self.num_classes + 1)
            bbox_preds = concat_preds(bbox_preds)
            return anchors, cls_preds, bbox_preds

    device = d2l.try_gpu()
    net = TinySSD(num_classes=1)
    net.initialize(ctx=device)
    X = _arr(np, (4, 3, 64, 64), 1, 0, 1)
    Y = np.array([[[0, 0.1, 0.2, 0.5, 0.6]], [[0, 0.3, 0.3, 0.9, 0.8]], [[0, 0.05, 0.5, 0.4, 0.95]],
                  [[0, 0.5, 0.1, 0.95, 0.45]]])
    net(X[:1])
    _setp(np, net, 2, 0.3)
    anchors, cls_preds, bbox_preds = net(X)
    _out(res, "ssd_shapes", list(anchors.shape) + list(cls_preds.shape) + list(bbox_preds.shape))
    cls_loss = gluon.loss.SoftmaxCrossEntropyLoss()
    bbox_loss = gluon.loss.L1Loss()

    def calc_loss(cls_preds, cls_labels, bbox_preds, bbox_labels, bbox_masks):
        cls = cls_loss(cls_preds, cls_labels)
        bbox = bbox_loss(bbox_preds * bbox_masks, bbox_labels * bbox_masks)
        return cls + bbox

    def cls_eval(cls_preds, cls_labels):
        return float((cls_preds.argmax(axis=-1).astype(cls_labels.dtype) == cls_labels).sum())

    def bbox_eval(bbox_preds, bbox_labels, bbox_masks):
        return float((np.abs((bbox_labels - bbox_preds) * bbox_masks)).sum())
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.2, 'wd': 5e-4})
    metric = d2l.Accumulator(4)
    for features, target in _loader(gluon, (X, Y), 2):
        with autograd.record():
            anchors, cls_preds, bbox_preds = net(features.as_in_ctx(device))
            bbox_labels, bbox_masks, cls_labels = d2l.multibox_target(anchors, target.as_in_ctx(device))
            l = calc_loss(cls_preds, cls_labels, bbox_preds, bbox_labels, bbox_masks)
        l.backward()
        trainer.step(2)
        metric.add(cls_eval(cls_preds, cls_labels), cls_labels.size, bbox_eval(bbox_preds, bbox_labels, bbox_masks),
                   bbox_labels.size)
        _out(res, "ssd_loss_%d" % len(res), l)
    res["ssd_metric"] = onp.array([metric[0], metric[1], metric[2], metric[3]], onp.float64)
    npx_labels = npx.multibox_target(anchors, target, cls_preds.transpose(0, 2, 1))
    for name, value in zip(("bbox", "mask", "cls"), npx_labels):
        _out(res, "npx_target_" + name, value[:, :40])
    with autograd.predict_mode():
        anchors, cls_preds, bbox_preds = net(X[:1])
    cls_probs = npx.softmax(cls_preds).transpose(0, 2, 1)
    output = d2l.multibox_detection(cls_probs, bbox_preds, anchors)
    idx = [i for i, row in enumerate(output[0]) if row[0] != -1]
    _out(res, "ssd_detect", output[0, idx][:10])
    _out(res, "ssd_npx_detect", npx.multibox_detection(cls_probs, bbox_preds, anchors, nms_threshold=0.5)[0, :10])
    boxes = _arr(np, (6, 4), 3, 0, 0.5)
    boxes[:, 2:] += 0.5
    _out(res, "nms", d2l.nms(boxes, np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4]), 0.3))
    return res


PTB = [("the quick brown fox jumps over the lazy dog and the cat sat on the mat while a bird sang "
        "in the tree near the house by the river").split() for _ in range(12)]


def word2vec_glove():
    """Chapter 15.1-15.7: load_data_ptb over an in-memory corpus (subsample, centers and
    contexts, RandomGenerator negatives, batchify, the DataLoader with workers), the
    skip-gram model (two Embeddings and npx.batch_dot) with SigmoidBCELoss and masks trained
    by Adam, get_similar_tokens with npx.topk, and TokenEmbedding over a local vec.txt."""
    d2l, np, npx = _setup()
    import tempfile
    from mxnet import autograd, gluon
    from mxnet.gluon import nn
    res = {}
    random.seed(0)
    orig = d2l.read_ptb
    d2l.read_ptb = lambda: [list(s) for s in PTB]
    try:
        data_iter, vocab = d2l.load_data_ptb(4, 2, 3)
    finally:
        d2l.read_ptb = orig
    onp.random.seed(0)
    batches = list(data_iter)
    res["ptb_batch_shapes"] = onp.array([b[1].shape for b in batches], onp.float64)
    res["ptb_total"] = onp.array([sum(float(b[2].sum()) for b in batches)], onp.float64)
    random.seed(1)
    data = [(1, [2, 2], [3, 3, 3, 3]), (1, [2, 2, 2], [3, 3])]
    for name, x in zip(["centers", "contexts_negatives", "masks", "labels"], d2l.batchify(data)):
        _out(res, "batchify_" + name, x)
    sentences = [["a", "b", "c", "d", "e", "f", "g"], ["h", "i", "j"]]
    res["centers_contexts"] = onp.array([len(c) for c in d2l.get_centers_and_contexts(sentences, 2)[1]],
                                        onp.float64)

    def skip_gram(center, contexts_and_negatives, embed_v, embed_u):
        v = embed_v(center)
        u = embed_u(contexts_and_negatives)
        return npx.batch_dot(v, u.swapaxes(1, 2))
    loss = gluon.loss.SigmoidBCELoss()
    _out(res, "sigmoid_bce_mask", loss(np.array([[1.1, -2.2, 3.3, -4.4]] * 2), np.array([[1.0, 0.0, 0.0, 0.0],
         [0.0, 1.0, 0.0, 0.0]]), np.array([[1, 1, 1, 1], [1, 1, 0, 0]])))
    embed_size = 8
    net = nn.Sequential()
    net.add(nn.Embedding(input_dim=len(vocab), output_dim=embed_size),
            nn.Embedding(input_dim=len(vocab), output_dim=embed_size))
    device = d2l.try_gpu()
    net.initialize(ctx=device, force_reinit=True)
    net(np.zeros((1, 1)))
    _setp(np, net, 2, 0.5)
    trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.02})
    batch = d2l.batchify([(vocab["the"], [vocab["quick"], vocab["fox"]], [vocab["dog"], vocab["cat"], vocab["mat"]]),
                          (vocab["river"], [vocab["the"]], [vocab["bird"], vocab["sang"], vocab["house"]])])
    for _ in range(3):
        center, context_negative, mask, label = [d.as_in_ctx(device) for d in batch]
        with autograd.record():
            pred = skip_gram(center, context_negative, net[0], net[1])
            l = (loss(pred.reshape(label.shape), label, mask) * mask.shape[1] / mask.sum(axis=1))
        l.backward()
        trainer.step(2)
        _out(res, "skip_gram_loss_%d" % len(res), l)

    W = net[0].weight.data()
    x = W[vocab["fox"]]
    cos = np.dot(W, x) / np.sqrt(np.sum(W * W, axis=1) * np.sum(x * x) + 1e-9)
    _out(res, "cos", cos)
    _out(res, "topk", npx.topk(cos, k=4, ret_typ='indices').asnumpy().astype('int32'))

    tmp = tempfile.mkdtemp()
    rng = onp.random.RandomState(4)
    with open(os.path.join(tmp, "vec.txt"), "w") as f:
        f.write("5 4\n")
        for w in ["man", "woman", "king", "queen", "chip"]:
            f.write(w + " " + " ".join("%.4f" % v for v in rng.uniform(-1, 1, 4)) + "\n")
    orig = d2l.download_extract
    d2l.download_extract = lambda name, folder=None: tmp
    try:
        glove = d2l.TokenEmbedding("glove.6b.50d")
    finally:
        d2l.download_extract = orig
    _out(res, "glove_vecs", glove[["king", "nothing", "chip"]])

    def knn(W, x, k):
        cos = np.dot(W, x.reshape(-1,)) / (np.sqrt(np.sum(W * W, axis=1) + 1e-9) * np.sqrt((x * x).sum()))
        topk = npx.topk(cos, k=k, ret_typ='indices')
        return topk, [cos[int(i)] for i in topk]
    topk, cos = knn(glove.idx_to_vec, glove[["queen"]][0] - glove[["woman"]][0] + glove[["man"]][0], 3)
    _out(res, "glove_knn", topk)
    _out(res, "glove_knn_cos", [float(c) for c in cos])
    res["glove_len"] = onp.array([len(glove)], onp.float64)
    return res


def _paragraphs():
    words = "alpha beta gamma delta epsilon zeta eta theta".split()
    rng = onp.random.RandomState(5)
    return [" . ".join(" ".join(rng.choice(words, size=rng.randint(3, 6))) for _ in range(3)).lower()
            for _ in range(12)]


def bert():
    """Chapter 15.8-15.10 and 16.6-16.7: the _WikiTextDataset pipeline over in-memory
    paragraphs (NSP and MLM examples, padding), BERTModel pretraining steps with
    _get_batch_loss_bert on shards split onto [cpu(0), cpu(1)], get_bert_encoding, then
    BERT fine-tuning for NLI through train_ch13 with split_batch_multi_inputs."""
    d2l, np, npx = _setup()
    from mxnet import autograd, gluon, init
    from mxnet.gluon import nn
    res = {}
    random.seed(3)
    paragraphs = [p.split(' . ') for p in _paragraphs()]
    train_set = d2l._WikiTextDataset(paragraphs, 16)
    vocab = train_set.vocab
    res["wiki_len"] = onp.array([len(train_set), len(vocab)], onp.float64)
    ex = train_set[0]
    for i, name in enumerate(("tokens", "segments", "valid_len", "pred_positions", "mlm_weights", "mlm_labels",
                              "nsp")):
        _out(res, "wiki_" + name, ex[i])
    train_iter = gluon.data.DataLoader(train_set, 4, shuffle=False)
    devices = _devices()
    net = d2l.BERTModel(len(vocab), num_hiddens=16, ffn_num_hiddens=32, num_heads=2, num_blks=2, dropout=0.0,
                        max_len=32)
    net.initialize(init.Xavier(), ctx=devices)
    batch = next(iter(train_iter))
    net(batch[0][:1].as_in_ctx(devices[0]), batch[1][:1].as_in_ctx(devices[0]),
        batch[2][:1].as_in_ctx(devices[0]), batch[3][:1].as_in_ctx(devices[0]))
    _setp(np, net, 6, 0.2)
    loss = gluon.loss.SoftmaxCELoss()
    trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.01})
    for step, batch in enumerate(train_iter):
        if step == 3:
            break
        shards = [gluon.utils.split_and_load(elem, devices, even_split=False) for elem in batch]
        with autograd.record():
            mlm_ls, nsp_ls, ls = d2l._get_batch_loss_bert(net, loss, len(vocab), *shards)
        for l in ls:
            l.backward()
        trainer.step(1)
        res["bert_losses_%d" % step] = onp.array([float(x) for x in mlm_ls + nsp_ls], onp.float64)

    def get_bert_encoding(net, tokens_a, tokens_b=None):
        tokens, segments = d2l.get_tokens_and_segments(tokens_a, tokens_b)
        token_ids = np.expand_dims(np.array(vocab[tokens], ctx=devices[0]), axis=0)
        segments = np.expand_dims(np.array(segments, ctx=devices[0]), axis=0)
        valid_len = np.expand_dims(np.array(len(tokens), ctx=devices[0]), axis=0)
        encoded_X, _, _ = net(token_ids, segments, valid_len)
        return encoded_X
    _out(res, "bert_encoding", get_bert_encoding(net, ["alpha", "beta"], ["gamma"])[0, :3])

    class BERTClassifier(nn.Block):
        def __init__(self, bert):
            super(BERTClassifier, self).__init__()
            self.encoder = bert.encoder
            self.hidden = bert.hidden
            self.output = nn.Dense(3)

        def forward(self, inputs):
            tokens_X, segments_X, valid_lens_x = inputs
            encoded_X = self.encoder(tokens_X, segments_X, valid_lens_x)
            return self.output(self.hidden(encoded_X[:, 0, :]))

    class SNLIBERTDataset(gluon.data.Dataset):
        def __init__(self, n):
            self.examples = [train_set[i] for i in range(n)]

        def __getitem__(self, idx):
            t, s, v = self.examples[idx][:3]
            return (t, s, v), idx % 3

        def __len__(self):
            return len(self.examples)
    clf = BERTClassifier(net)
    clf.output.initialize(ctx=devices)
    clf.output(np.zeros((1, 16), ctx=devices[0]))
    _setp(np, clf.output, 7)
    nli_train = gluon.data.DataLoader(SNLIBERTDataset(15), 3, shuffle=False)
    nli_test = gluon.data.DataLoader(SNLIBERTDataset(6), 3)
    trainer = gluon.Trainer(clf.collect_params(), 'adam', {'learning_rate': 1e-3})
    _quiet(d2l.train_ch13, clf, nli_train, nli_test, gluon.loss.SoftmaxCrossEntropyLoss(), trainer, 1, devices,
           d2l.split_batch_multi_inputs)
    X, y = next(iter(nli_test))
    _out(res, "bert_nli_out", clf([x.as_in_ctx(devices[0]) for x in X]))
    _out(res, "bert_nli_acc", d2l.evaluate_accuracy_gpus(clf, nli_test, d2l.split_batch_multi_inputs))
    return res


REVIEWS = ["this movie is so great and fun", "what a great film with a fun story", "i love this great movie",
           "a fun and great story", "this film is so bad and boring", "what a bad movie with a boring story",
           "i hate this bad film", "a boring and bad story"]


def sentiment_nli():
    """Chapter 16.1-16.5: load_data_imdb over in-memory reviews, BiRNN (bidirectional LSTM)
    and TextCNN (Conv1D, GlobalMaxPool1D) with a frozen pretrained embedding (set_data,
    grad_req 'null') trained by train_ch13 on two CPU contexts, predict_sentiment; then
    load_data_snli and the decomposable attention model (npx.batch_dot with transpose_b)
    through train_ch13 with split_batch_multi_inputs, and predict_snli."""
    d2l, np, npx = _setup()
    from mxnet import gluon, init
    from mxnet.gluon import nn, rnn
    res = {}
    orig = d2l.download_extract, d2l.read_imdb, d2l.read_snli
    d2l.download_extract = lambda name, folder=None: "unused"
    d2l.read_imdb = lambda data_dir, is_train: ((REVIEWS * 3, [1, 1, 1, 1, 0, 0, 0, 0] * 3) if is_train
                                                else (REVIEWS, [1, 1, 1, 1, 0, 0, 0, 0]))
    snli = (["a man is playing a guitar", "a woman is eating food", "a dog runs in the park"] * 6,
            ["a man plays music", "a woman is sleeping", "an animal is outside"] * 6, [0, 1, 2] * 6)
    d2l.read_snli = lambda data_dir, is_train: snli
    try:
        onp.random.seed(0)
        train_iter, test_iter, vocab = d2l.load_data_imdb(4, num_steps=10)
        snli_train, snli_test, snli_vocab = _quiet(d2l.load_data_snli, 3, num_steps=8)
    finally:
        d2l.download_extract, d2l.read_imdb, d2l.read_snli = orig
    X, y = next(iter(test_iter))
    _out(res, "imdb_batch", X)
    res["imdb_vocab"] = onp.array([len(vocab), len(snli_vocab)], onp.float64)
    devices = _devices()
    embeds = _arr(np, (len(vocab), 6), 1)

    class BiRNN(nn.Block):
        def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, **kwargs):
            super(BiRNN, self).__init__(**kwargs)
            self.embedding = nn.Embedding(vocab_size, embed_size)
            self.encoder = rnn.LSTM(num_hiddens, num_layers=num_layers, bidirectional=True, input_size=embed_size)
            self.decoder = nn.Dense(2)

        def forward(self, inputs):
            embeddings = self.embedding(inputs.T)
            outputs = self.encoder(embeddings)
            encoding = np.concatenate((outputs[0], outputs[-1]), axis=1)
            return self.decoder(encoding)
    net = BiRNN(len(vocab), 6, 8, 2)
    net.initialize(init.Xavier(), ctx=devices)
    net(X.as_in_ctx(devices[0]))
    _setp(np, net, 2, 0.3)
    net.embedding.weight.set_data(embeds)
    net.embedding.collect_params().setattr('grad_req', 'null')
    trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.01})
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    _quiet(d2l.train_ch13, net, train_iter, test_iter, loss, trainer, 1, devices)
    _out(res, "birnn_out", net(X.as_in_ctx(devices[1])))
    _out(res, "birnn_embedding_unchanged", net.embedding.weight.data(devices[1]) - embeds.as_in_ctx(devices[1]))
    res["birnn_predict"] = onp.array([d2l.predict_sentiment(net, vocab, s) == "positive"
                                      for s in ("this movie is so great", "this movie is so bad")], onp.float64)

    class TextCNN(nn.Block):
        def __init__(self, vocab_size, embed_size, kernel_sizes, num_channels, **kwargs):
            super(TextCNN, self).__init__(**kwargs)
            self.embedding = nn.Embedding(vocab_size, embed_size)
            self.constant_embedding = nn.Embedding(vocab_size, embed_size)
            self.dropout = nn.Dropout(0.0)  # the book's 0.5, off for a deterministic run
            self.decoder = nn.Dense(2)
            self.pool = nn.GlobalMaxPool1D()
            self.convs = nn.Sequential()
            for c, k in zip(num_channels, kernel_sizes):
                self.convs.add(nn.Conv1D(c, k, activation='relu'))

        def forward(self, inputs):
            embeddings = np.concatenate((self.embedding(inputs), self.constant_embedding(inputs)), axis=2)
            embeddings = embeddings.transpose(0, 2, 1)
            encoding = np.concatenate([np.squeeze(self.pool(conv(embeddings)), axis=-1) for conv in self.convs],
                                      axis=1)
            return self.decoder(self.dropout(encoding))
    net = TextCNN(len(vocab), 6, [3, 4, 5], [4, 4, 4])
    net.initialize(init.Xavier(), ctx=devices)
    net(X.as_in_ctx(devices[0]))
    _setp(np, net, 3, 0.3)
    net.embedding.weight.set_data(embeds)
    net.constant_embedding.weight.set_data(embeds)
    net.constant_embedding.collect_params().setattr('grad_req', 'null')
    trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.01})
    _quiet(d2l.train_ch13, net, train_iter, test_iter, loss, trainer, 1, devices)
    _out(res, "textcnn_out", net(X.as_in_ctx(devices[0])))
    res["textcnn_predict"] = onp.array([d2l.predict_sentiment(net, vocab, "this movie is so great") == "positive"],
                                       onp.float64)

    def mlp(num_hiddens, flatten):
        net = nn.Sequential()
        net.add(nn.Dropout(0.0))  # the book's 0.2, off for a deterministic run
        net.add(nn.Dense(num_hiddens, activation='relu', flatten=flatten))
        net.add(nn.Dropout(0.0))
        net.add(nn.Dense(num_hiddens, activation='relu', flatten=flatten))
        return net

    class Attend(nn.Block):
        def __init__(self, num_hiddens, **kwargs):
            super(Attend, self).__init__(**kwargs)
            self.f = mlp(num_hiddens=num_hiddens, flatten=False)

        def forward(self, A, B):
            f_A = self.f(A)
            f_B = self.f(B)
            e = npx.batch_dot(f_A, f_B, transpose_b=True)
            beta = npx.batch_dot(npx.softmax(e), B)
            alpha = npx.batch_dot(npx.softmax(e.transpose(0, 2, 1)), A)
            return beta, alpha

    class Compare(nn.Block):
        def __init__(self, num_hiddens, **kwargs):
            super(Compare, self).__init__(**kwargs)
            self.g = mlp(num_hiddens=num_hiddens, flatten=False)

        def forward(self, A, B, beta, alpha):
            V_A = self.g(np.concatenate([A, beta], axis=2))
            V_B = self.g(np.concatenate([B, alpha], axis=2))
            return V_A, V_B

    class Aggregate(nn.Block):
        def __init__(self, num_hiddens, num_outputs, **kwargs):
            super(Aggregate, self).__init__(**kwargs)
            self.h = mlp(num_hiddens=num_hiddens, flatten=True)
            self.h.add(nn.Dense(num_outputs))

        def forward(self, V_A, V_B):
            V_A = V_A.sum(axis=1)
            V_B = V_B.sum(axis=1)
            return self.h(np.concatenate([V_A, V_B], axis=1))

    class DecomposableAttention(nn.Block):
        def __init__(self, vocab, embed_size, num_hiddens, **kwargs):
            super(DecomposableAttention, self).__init__(**kwargs)
            self.embedding = nn.Embedding(len(vocab), embed_size)
            self.attend = Attend(num_hiddens)
            self.compare = Compare(num_hiddens)
            self.aggregate = Aggregate(num_hiddens, 3)

        def forward(self, X):
            premises, hypotheses = X
            A = self.embedding(premises)
            B = self.embedding(hypotheses)
            beta, alpha = self.attend(A, B)
            V_A, V_B = self.compare(A, B, beta, alpha)
            return self.aggregate(V_A, V_B)
    net = DecomposableAttention(snli_vocab, 6, 8)
    net.initialize(init.Xavier(), ctx=devices)
    (P, H), _ = next(iter(snli_test))
    net([P.as_in_ctx(devices[0]), H.as_in_ctx(devices[0])])
    _setp(np, net, 4, 0.3)
    trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.01})
    _quiet(d2l.train_ch13, net, snli_train, snli_test, loss, trainer, 1, devices, d2l.split_batch_multi_inputs)
    _out(res, "nli_out", net([P.as_in_ctx(devices[0]), H.as_in_ctx(devices[0])]))
    res["nli_predict"] = onp.array([["entailment", "contradiction", "neutral"].index(
        d2l.predict_snli(net, snli_vocab, ["a", "man", "is", "playing"], ["a", "man", "plays"]))], onp.float64)
    return res


def gans():
    """Chapter 20: the basic GAN's update_D/update_G (Dense nets, SigmoidBCELoss, Adam) and
    DCGAN's G_block/D_block (Conv2DTranspose, BatchNorm, LeakyReLU) with Adam(beta1=0.5),
    fixed noise instead of np.random.normal."""
    d2l, np, npx = _setup()
    from mxnet import gluon, init
    from mxnet.gluon import nn
    res = {}
    X = np.dot(_arr(np, (16, 2), 1), np.array([[1, 2], [-0.1, 0.5]])) + np.array([1, 2])
    net_G = nn.Sequential()
    net_G.add(nn.Dense(2))
    net_D = nn.Sequential()
    net_D.add(nn.Dense(5, activation='tanh'), nn.Dense(3, activation='tanh'), nn.Dense(1))
    loss = gluon.loss.SigmoidBCELoss()
    net_D.initialize(init=init.Normal(0.02), force_reinit=True)
    net_G.initialize(init=init.Normal(0.02), force_reinit=True)
    net_G(X[:1])
    net_D(X[:1])
    _setp(np, net_G, 2)
    _setp(np, net_D, 3)
    trainer_D = gluon.Trainer(net_D.collect_params(), 'adam', {'learning_rate': 0.05})
    trainer_G = gluon.Trainer(net_G.collect_params(), 'adam', {'learning_rate': 0.005})
    losses = []
    for i, Xb in enumerate(d2l.load_array((X,), 8, is_train=False)):
        Z = _arr(np, (8, 2), 10 + i)
        losses.append([d2l.update_D(Xb, Z, net_D, net_G, loss, trainer_D),
                       d2l.update_G(Z, net_D, net_G, loss, trainer_G)])
    res["gan_losses"] = onp.array(losses, onp.float64)
    _out(res, "gan_fake", net_G(_arr(np, (3, 2), 20)))

    class G_block(nn.Block):
        def __init__(self, channels, kernel_size=4, strides=2, padding=1, **kwargs):
            super(G_block, self).__init__(**kwargs)
            self.conv2d_trans = nn.Conv2DTranspose(channels, kernel_size, strides, padding, use_bias=False)
            self.batch_norm = nn.BatchNorm()
            self.activation = nn.Activation('relu')

        def forward(self, X):
            return self.activation(self.batch_norm(self.conv2d_trans(X)))

    class D_block(nn.Block):
        def __init__(self, channels, kernel_size=4, strides=2, padding=1, alpha=0.2, **kwargs):
            super(D_block, self).__init__(**kwargs)
            self.conv2d = nn.Conv2D(channels, kernel_size, strides, padding, use_bias=False)
            self.batch_norm = nn.BatchNorm()
            self.activation = nn.LeakyReLU(alpha)

        def forward(self, X):
            return self.activation(self.batch_norm(self.conv2d(X)))
    n_G, n_D = 4, 4
    net_G = nn.Sequential()
    net_G.add(G_block(n_G * 4, strides=1, padding=0), G_block(n_G * 2), G_block(n_G),
              nn.Conv2DTranspose(3, kernel_size=4, strides=2, padding=1, use_bias=False, activation='tanh'))
    net_D = nn.Sequential()
    net_D.add(D_block(n_D), D_block(n_D * 2), D_block(n_D * 4), nn.Conv2D(1, kernel_size=4, use_bias=False))
    device = d2l.try_gpu()
    net_D.initialize(init=init.Normal(0.02), force_reinit=True, ctx=device)
    net_G.initialize(init=init.Normal(0.02), force_reinit=True, ctx=device)
    Z = _arr(np, (4, 8, 1, 1), 5)
    fake = net_G(Z)
    _out(res, "dcgan_fake_shape", fake.shape)
    net_D(fake)
    _setp(np, net_G, 6, 0.2)
    _setp(np, net_D, 7, 0.2)
    trainer_hp = {'learning_rate': 0.005, 'beta1': 0.5}
    trainer_D = gluon.Trainer(net_D.collect_params(), 'adam', trainer_hp)
    trainer_G = gluon.Trainer(net_G.collect_params(), 'adam', trainer_hp)
    Xr = _arr(np, (4, 3, 32, 32), 8)
    losses = []
    for step in range(2):
        losses.append([d2l.update_D(Xr, Z, net_D, net_G, loss, trainer_D),
                       d2l.update_G(Z, net_D, net_G, loss, trainer_G)])
    res["dcgan_losses"] = onp.array(losses, onp.float64)
    _out(res, "dcgan_fake", net_G(Z)[0, 0, :3, :4])
    _out(res, "dcgan_running_var", net_D[1].batch_norm.running_var.data())
    _out(res, "leaky_relu", nn.LeakyReLU(0.2)(np.array([-1.0, -0.5, 0.0, 2.0])))
    return res


def _ml100k():
    import pandas as pd
    rng = onp.random.RandomState(7)
    rows, t = [], 0
    for u in range(1, 13):
        for i in rng.choice(onp.arange(1, 11), size=5, replace=False):
            t += 1
            rows.append((u, int(i), int(rng.randint(1, 6)), t))
    return pd.DataFrame(rows, columns=['user_id', 'item_id', 'rating', 'timestamp']), 12, 10


def recsys():
    """Chapter 21: split_and_load_ml100k (seq-aware split) over an in-memory MovieLens-like
    table, matrix factorization trained by train_recsys_rating on two CPU contexts with the
    book's RMSE evaluator (mx.metric.RMSE over split_and_load shards), AutoRec on the
    interaction matrix, NeuMF with BPRLoss/HingeLossbRec, evaluate_ranking/hit_and_auc, and
    FM/DeepFM on CTRDataset read from a local file."""
    d2l, np, npx = _setup()
    import tempfile
    import mxnet as mx
    from mxnet import autograd, gluon, init
    from mxnet.gluon import nn
    res = {}
    orig = d2l.read_data_ml100k
    d2l.read_data_ml100k = _ml100k
    try:
        onp.random.seed(0)
        num_users, num_items, train_iter, test_iter = d2l.split_and_load_ml100k(test_ratio=0.1, batch_size=16)
    finally:
        d2l.read_data_ml100k = orig
    train_iter = gluon.data.DataLoader(train_iter._dataset, shuffle=False, last_batch='rollover', batch_size=16)
    devices = _devices()

    class MF(nn.Block):
        def __init__(self, num_factors, num_users, num_items, **kwargs):
            super(MF, self).__init__(**kwargs)
            self.P = nn.Embedding(input_dim=num_users, output_dim=num_factors)
            self.Q = nn.Embedding(input_dim=num_items, output_dim=num_factors)
            self.user_bias = nn.Embedding(num_users, 1)
            self.item_bias = nn.Embedding(num_items, 1)

        def forward(self, user_id, item_id):
            P_u = self.P(user_id)
            Q_i = self.Q(item_id)
            b_u = self.user_bias(user_id)
            b_i = self.item_bias(item_id)
            outputs = (P_u * Q_i).sum(axis=1) + np.squeeze(b_u) + np.squeeze(b_i)
            return outputs.flatten()

    def evaluator(net, test_iter, devices):
        rmse = mx.metric.RMSE()
        rmse_list = []
        for idx, (users, items, ratings) in enumerate(test_iter):
            u = gluon.utils.split_and_load(users, devices, even_split=False)
            i = gluon.utils.split_and_load(items, devices, even_split=False)
            r_ui = gluon.utils.split_and_load(ratings, devices, even_split=False)
            r_hat = [net(u, i) for u, i in zip(u, i)]
            rmse.update(labels=r_ui, preds=r_hat)
            rmse_list.append(rmse.get()[1])
        return float(np.mean(np.array(rmse_list)))
    net = MF(4, num_users, num_items)
    net.initialize(ctx=devices, force_reinit=True, init=mx.init.Normal(0.01))
    net(np.array([0]), np.array([0]))
    _setp(np, net, 1, 0.5)
    trainer = gluon.Trainer(net.collect_params(), 'adam', {"learning_rate": 0.02, 'wd': 1e-5})
    _quiet(d2l.train_recsys_rating, net, train_iter, test_iter, gluon.loss.L2Loss(), trainer, 2, devices, evaluator)
    _out(res, "mf_rmse", evaluator(net, test_iter, devices))
    _out(res, "mf_score", net(np.array([2], dtype='int', ctx=devices[0]), np.array([3], dtype='int', ctx=devices[0])))

    df, _, _ = _ml100k()
    train_data, test_data = d2l.split_data_ml100k(df, num_users, num_items, 'seq-aware')
    _, _, _, train_inter_mat = d2l.load_data_ml100k(train_data, num_users, num_items)
    _, _, _, test_inter_mat = d2l.load_data_ml100k(test_data, num_users, num_items)

    class AutoRec(nn.Block):
        def __init__(self, num_hidden, num_users, dropout=0.05):
            super(AutoRec, self).__init__()
            self.encoder = nn.Dense(num_hidden, activation='sigmoid', use_bias=True)
            self.decoder = nn.Dense(num_users, use_bias=True)
            self.dropout = nn.Dropout(dropout)

        def forward(self, input):
            hidden = self.dropout(self.encoder(input))
            pred = self.decoder(hidden)
            if autograd.is_training():  # Mask the gradient during training
                return pred * np.sign(input)
            return pred

    def ar_evaluator(network, inter_matrix, test_data, devices):
        scores = []
        for values in inter_matrix:
            feat = gluon.utils.split_and_load(values, devices, even_split=False)
            scores.extend([network(i).asnumpy() for i in feat])
        recons = np.array([item for sublist in scores for item in sublist])
        rmse = np.sqrt(np.sum(np.square(test_data - np.sign(test_data) * recons)) / np.sum(np.sign(test_data)))
        return float(rmse)
    ar_train = gluon.data.DataLoader(train_inter_mat, shuffle=False, last_batch="rollover", batch_size=4)
    ar_test = gluon.data.DataLoader(np.array(train_inter_mat), shuffle=False, last_batch="keep", batch_size=8)
    net = AutoRec(6, num_users, dropout=0.0)
    net.initialize(ctx=devices, force_reinit=True, init=mx.init.Normal(0.01))
    net(np.zeros((1, num_users)))
    _setp(np, net, 2, 0.5)
    trainer = gluon.Trainer(net.collect_params(), 'adam', {"learning_rate": 0.01, 'wd': 1e-5})
    _quiet(d2l.train_recsys_rating, net, ar_train, ar_test, gluon.loss.L2Loss(), trainer, 2, devices, ar_evaluator,
           inter_mat=test_inter_mat)
    _out(res, "autorec_rmse", ar_evaluator(net, ar_test, test_inter_mat, devices))

    class NeuMF(nn.Block):
        def __init__(self, num_factors, num_users, num_items, nums_hiddens, **kwargs):
            super(NeuMF, self).__init__(**kwargs)
            self.P = nn.Embedding(num_users, num_factors)
            self.Q = nn.Embedding(num_items, num_factors)
            self.U = nn.Embedding(num_users, num_factors)
            self.V = nn.Embedding(num_items, num_factors)
            self.mlp = nn.Sequential()
            for num_hiddens in nums_hiddens:
                self.mlp.add(nn.Dense(num_hiddens, activation='relu', use_bias=True))
            self.prediction_layer = nn.Dense(1, activation='sigmoid', use_bias=False)

        def forward(self, user_id, item_id):
            p_mf = self.P(user_id)
            q_mf = self.Q(item_id)
            gmf = p_mf * q_mf
            p_mlp = self.U(user_id)
            q_mlp = self.V(item_id)
            mlp = self.mlp(np.concatenate([p_mlp, q_mlp], axis=1))
            con_res = np.concatenate([gmf, mlp], axis=1)
            return self.prediction_layer(con_res)

    class PRDataset(gluon.data.Dataset):
        def __init__(self, users, items, candidates, num_items):
            self.users = users
            self.items = items
            self.cand = candidates
            self.all = set([i for i in range(num_items)])

        def __len__(self):
            return len(self.users)

        def __getitem__(self, idx):
            neg_items = list(self.all - set(self.cand[int(self.users[idx])]))
            indices = random.randint(0, len(neg_items) - 1)
            return self.users[idx], self.items[idx], neg_items[indices]
    users_train, items_train, ratings_train, candidates = d2l.load_data_ml100k(train_data, num_users, num_items,
                                                                              feedback='implicit')
    users_test, items_test, ratings_test, test_iter = d2l.load_data_ml100k(test_data, num_users, num_items,
                                                                          feedback='implicit')
    random.seed(4)
    rank_iter = gluon.data.DataLoader(PRDataset(users_train, items_train, candidates, num_items), 16, False,
                                      last_batch="rollover")
    net = NeuMF(4, num_users, num_items, nums_hiddens=[6, 6])
    net.initialize(ctx=devices, force_reinit=True, init=mx.init.Normal(0.01))
    net(np.array([0]), np.array([0]))
    _setp(np, net, 3, 0.5)
    trainer = gluon.Trainer(net.collect_params(), 'adam', {"learning_rate": 0.01, 'wd': 1e-5})
    _quiet(d2l.train_ranking, net, rank_iter, test_iter, d2l.BPRLoss(), trainer, None, num_users, num_items, 2,
           devices, d2l.evaluate_ranking, candidates)
    with autograd.predict_mode():
        hit_rate, auc = d2l.evaluate_ranking(net, test_iter, None, candidates, num_users, num_items, devices)
    _out(res, "neumf_hit_auc", [float(hit_rate), float(auc)])
    _out(res, "neumf_scores", net(np.array([0, 1, 2]), np.array([3, 4, 5])))
    res["hit_and_auc"] = onp.array(d2l.hit_and_auc([4, 2, 7, 1, 9], [7, 3], 2) + d2l.hit_and_auc([4, 2, 7, 1, 9],
                                   [7, 9], 4), onp.float64)
    pos, neg = _arr(np, (5, 1), 4), _arr(np, (5, 1), 5)
    _out(res, "bpr_loss", d2l.BPRLoss()(pos, neg))
    _out(res, "hinge_loss", d2l.HingeLossbRec()(pos, neg))

    tmp = tempfile.mkdtemp()
    rng = onp.random.RandomState(8)
    for name, n in (("train.csv", 40), ("test.csv", 10)):
        with open(os.path.join(tmp, name), "w") as f:
            for _ in range(n):
                f.write("\t".join([str(rng.randint(0, 2))] + ["f%d" % rng.randint(0, 3) for _ in range(34)]) + "\n")
    train_data = d2l.CTRDataset(os.path.join(tmp, 'train.csv'))
    # the feature maps enumerate Python sets of strings: sorted here, for an order that does not hang on the hash seed
    mapper = {i: {v: idx for idx, v in enumerate(sorted(m))} for i, m in train_data.feat_mapper.items()}
    train_data = d2l.CTRDataset(os.path.join(tmp, 'train.csv'), feat_mapper=mapper, defaults=train_data.defaults)
    test_data = d2l.CTRDataset(os.path.join(tmp, 'test.csv'), feat_mapper=train_data.feat_mapper,
                               defaults=train_data.defaults)
    _out(res, "ctr_field_dims", train_data.field_dims)
    feat, y = train_data[1]
    _out(res, "ctr_item", feat)
    ctr_train = gluon.data.DataLoader(train_data, shuffle=False, last_batch='rollover', batch_size=8)
    ctr_test = gluon.data.DataLoader(test_data, shuffle=False, last_batch='rollover', batch_size=8)

    class FM(nn.Block):
        def __init__(self, field_dims, num_factors):
            super(FM, self).__init__()
            num_inputs = int(sum(field_dims))
            self.embedding = nn.Embedding(num_inputs, num_factors)
            self.fc = nn.Embedding(num_inputs, 1)
            self.linear_layer = nn.Dense(1, use_bias=True)

        def forward(self, x):
            square_of_sum = np.sum(self.embedding(x), axis=1) ** 2
            sum_of_square = np.sum(self.embedding(x) ** 2, axis=1)
            x = self.linear_layer(self.fc(x).sum(1)) + 0.5 * (square_of_sum - sum_of_square).sum(1, keepdims=True)
            return npx.sigmoid(x)

    class DeepFM(nn.Block):
        def __init__(self, field_dims, num_factors, mlp_dims, drop_rate=0.1):
            super(DeepFM, self).__init__()
            num_inputs = int(sum(field_dims))
            self.embedding = nn.Embedding(num_inputs, num_factors)
            self.fc = nn.Embedding(num_inputs, 1)
            self.linear_layer = nn.Dense(1, use_bias=True)
            input_dim = self.embed_output_dim = len(field_dims) * num_factors
            self.mlp = nn.Sequential()
            for dim in mlp_dims:
                self.mlp.add(nn.Dense(dim, 'relu', True, in_units=input_dim))
                self.mlp.add(nn.Dropout(rate=drop_rate))
                input_dim = dim
            self.mlp.add(nn.Dense(in_units=input_dim, units=1))

        def forward(self, x):
            embed_x = self.embedding(x)
            square_of_sum = np.sum(embed_x, axis=1) ** 2
            sum_of_square = np.sum(embed_x ** 2, axis=1)
            inputs = np.reshape(embed_x, (-1, self.embed_output_dim))
            x = self.linear_layer(self.fc(x).sum(1)) + 0.5 * (square_of_sum - sum_of_square).sum(1, keepdims=True) \
                + self.mlp(inputs)
            return npx.sigmoid(x)
    for seed, net in ((9, FM(train_data.field_dims, num_factors=4)),
                      (10, DeepFM(train_data.field_dims, num_factors=4, mlp_dims=[8, 8], drop_rate=0.0))):
        name = type(net).__name__.lower()
        net.initialize(init.Xavier(), ctx=devices)
        net(feat.reshape(1, -1).as_in_ctx(devices[0]))
        _setp(np, net, seed, 0.3)
        trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.02})
        _quiet(d2l.train_ch13, net, ctr_train, ctr_test, gluon.loss.SigmoidBCELoss(), trainer, 1, devices)
        X, _ = next(iter(ctr_test))
        _out(res, name + "_out", net(X.as_in_ctx(devices[1])))
        _out(res, name + "_acc", d2l.evaluate_accuracy_gpus(net, ctr_test))
    return res


def performance():
    """Chapter 13: the book's get_net hybridized and exported (and loaded back with
    SymbolBlock.imports), a HybridBlock overriding forward, npx.waitall and
    wait_to_read, the multi-GPU-from-scratch LeNet (npx.convolution/pooling, get_params,
    allreduce by copyto between cpu(0) and cpu(1), d2l.sgd), and d2l.resnet18 on two
    contexts through train_batch_ch13 and evaluate_accuracy_gpus."""
    d2l, np, npx = _setup()
    import tempfile
    from mxnet import autograd, gluon, init
    from mxnet.gluon import nn
    res = {}

    def get_net():
        net = nn.HybridSequential()
        net.add(nn.Dense(16, activation='relu'), nn.Dense(8, activation='relu'), nn.Dense(2))
        net.initialize()
        return net
    x = _arr(np, (1, 12), 1)
    net = get_net()
    net(x)
    _setp(np, net, 2)
    eager = net(x)
    net.hybridize()
    _out(res, "hybrid_out", net(x))
    _out(res, "hybrid_eager_diff", net(x) - eager)
    tmp = tempfile.mkdtemp()
    net.export(os.path.join(tmp, 'my_mlp'))
    res["exported_files"] = onp.array([os.path.exists(os.path.join(tmp, f))
                                       for f in ('my_mlp-symbol.json', 'my_mlp-0000.params')], onp.float64)
    loaded = gluon.SymbolBlock.imports(os.path.join(tmp, 'my_mlp-symbol.json'), ['data'],
                                       os.path.join(tmp, 'my_mlp-0000.params'))
    _out(res, "imported_out", loaded(x))
    npx.waitall()

    class HybridNet(nn.HybridBlock):
        def __init__(self):
            super(HybridNet, self).__init__()
            self.hidden = nn.Dense(4)
            self.output = nn.Dense(2)

        def forward(self, x):
            x = npx.relu(self.hidden(x))
            return self.output(x)
    hnet = HybridNet()
    hnet.initialize()
    hnet(x)
    _setp(np, hnet, 7)
    hnet.hybridize()
    hnet(x)
    _out(res, "hybridnet_out", hnet(x))
    y = np.dot(x, x.T)
    y.wait_to_read()
    _out(res, "wait_to_read", y)

    devices = _devices()
    rng = onp.random.RandomState(3)
    shapes = [(4, 1, 3, 3), (4,), (8, 4, 5, 5), (8,), (8, 16), (16,), (16, 10), (10,)]
    params = [np.array(rng.normal(scale=0.1, size=s).astype("float32")) for s in shapes]

    def lenet(X, params):
        h1_conv = npx.convolution(data=X, weight=params[0], bias=params[1], kernel=(3, 3), num_filter=4)
        h1_activation = npx.relu(h1_conv)
        h1 = npx.pooling(data=h1_activation, pool_type='avg', kernel=(2, 2), stride=(2, 2))
        h2_conv = npx.convolution(data=h1, weight=params[2], bias=params[3], kernel=(5, 5), num_filter=8)
        h2_activation = npx.relu(h2_conv)
        h2 = npx.pooling(data=h2_activation, pool_type='avg', kernel=(2, 2), stride=(2, 2))
        h2 = h2.reshape(h2.shape[0], -1)
        h3 = npx.relu(np.dot(h2, params[4]) + params[5])
        return np.dot(h3, params[6]) + params[7]
    loss = gluon.loss.SoftmaxCrossEntropyLoss()

    def get_params(params, device):
        new_params = [p.copyto(device) for p in params]
        for p in new_params:
            p.attach_grad()
        return new_params

    def allreduce(data):
        for i in range(1, len(data)):
            data[0][:] += data[i].copyto(data[0].ctx)
        for i in range(1, len(data)):
            data[0].copyto(data[i])
    data = [np.ones((1, 2), ctx=devices[i]) * (i + 1) for i in range(2)]
    allreduce(data)
    _out(res, "allreduce", [data[0], data[1]])
    device_params = [get_params(params, d) for d in devices]
    X = _arr(np, (8, 1, 16, 16), 4)
    y = np.array([0, 1, 2, 3, 4, 5, 6, 7])
    for _ in range(2):
        X_shards, y_shards = d2l.split_batch(X, y, devices)
        with autograd.record():
            ls = [loss(lenet(X_shard, device_W), y_shard)
                  for X_shard, y_shard, device_W in zip(X_shards, y_shards, device_params)]
        for l in ls:
            l.backward()
        for i in range(len(device_params[0])):
            allreduce([device_params[c][i].grad for c in range(len(devices))])
        for param in device_params:
            d2l.sgd(param, 0.2, X.shape[0])
    npx.waitall()
    _out(res, "scratch_params_0", device_params[0][6][:3])
    _out(res, "scratch_params_1", device_params[1][6][:3])
    _out(res, "scratch_out", lenet(X.as_in_ctx(devices[1]), device_params[1]))

    net = d2l.resnet18(10)
    net.initialize(init=init.Normal(sigma=0.01), ctx=devices)
    Xr = _arr(np, (4, 1, 16, 16), 5)
    x_shards = gluon.utils.split_and_load(Xr, devices)
    net(x_shards[0])
    _setp(np, net, 6, 0.05)
    weight = net[0].params.get('weight')
    _out(res, "resnet_weight_ctx1", weight.data(devices[1])[0])
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    l, acc = d2l.train_batch_ch13(net, Xr, np.array([1, 2, 3, 4]), loss, trainer, devices)
    res["resnet_batch"] = onp.array([l, float(acc)], onp.float64)
    npx.waitall()
    _out(res, "resnet_eval", d2l.evaluate_accuracy_gpus(net, [(Xr, np.array([1, 2, 3, 4]))]))
    _out(res, "resnet_conv_after", net[0].weight.data(devices[1])[:2, 0])
    _out(res, "resnet_bn_after", net[1].running_var.data(devices[1]))
    with autograd.predict_mode():
        _out(res, "resnet_pred", net(x_shards[1]))
    return res


def _write_images(folder, names, seed, size=(12, 10), fmt="PNG"):
    from PIL import Image
    os.makedirs(folder, exist_ok=True)
    rng = onp.random.RandomState(seed)
    for name in names:
        arr = rng.randint(0, 256, size=(size[1], size[0], 3)).astype("uint8")
        arr[: size[1] // 2] //= 4  # some structure, so that JPEG's rounding stays small
        Image.fromarray(arr).save(os.path.join(folder, name), format=fmt, quality=95)


def image_files():
    """Chapters 14.6, 14.13-14.14, 14.2, 14.9 read from files as the book does: the banana
    detection set (read_data_bananas: pandas CSV and image.imread of PNGs, BananasDataset and
    load_data_bananas), Kaggle CIFAR-10's read_csv_labels/reorg_train_valid/reorg_test and
    ImageFolderDataset with transform_first, a hotdog-like ImageFolderDataset for
    fine-tuning's test augmentations, and read_voc_images over JPEG and PNG files."""
    d2l, np, npx = _setup()
    import tempfile
    from mxnet import gluon, image
    from mxnet.gluon.data.vision import transforms
    res = {}
    tmp = tempfile.mkdtemp()
    for split, n, seed in (("bananas_train", 6, 1), ("bananas_val", 3, 2)):
        names = ["%d.png" % i for i in range(n)]
        _write_images(os.path.join(tmp, split, "images"), names, seed, size=(16, 16))
        with open(os.path.join(tmp, split, "label.csv"), "w") as f:
            f.write("img_name,label,xmin,ymin,xmax,ymax\n")
            for i, name in enumerate(names):
                f.write("%s,0,%d,%d,%d,%d\n" % (name, i, 2 * i, 100 + i, 120 + 2 * i))
    orig = d2l.download_extract
    d2l.download_extract = lambda name, folder=None: tmp
    try:
        train_iter, val_iter = _quiet(d2l.load_data_bananas, 4)
    finally:
        d2l.download_extract = orig
    X, Y = next(iter(val_iter))
    _out(res, "bananas_X", X[:, :, :2, :3])
    _out(res, "bananas_Y", Y)
    res["bananas_len"] = onp.array([len(train_iter._dataset), len(val_iter._dataset)], onp.float64)
    _out(res, "imread_gray", image.imread(os.path.join(tmp, "bananas_val", "images", "1.png"), 0)[:3, :4])

    data_dir = os.path.join(tmp, "cifar")
    classes = ["cat", "dog", "frog"]
    _write_images(os.path.join(data_dir, "train"), ["%d.png" % i for i in range(1, 13)], 3)
    _write_images(os.path.join(data_dir, "test"), ["%d.png" % i for i in range(1, 4)], 4)
    with open(os.path.join(data_dir, "trainLabels.csv"), "w") as f:
        f.write("id,label\n" + "".join("%d,%s\n" % (i, classes[i % 3]) for i in range(1, 13)))
    labels = d2l.read_csv_labels(os.path.join(data_dir, 'trainLabels.csv'))
    res["reorg_n_valid"] = onp.array([d2l.reorg_train_valid(data_dir, labels, 0.5)], onp.float64)
    d2l.reorg_test(data_dir)
    transform_test = transforms.Compose([transforms.ToTensor(),
                                         transforms.Normalize([0.4914, 0.4822, 0.4465], [0.2023, 0.1994, 0.2010])])
    train_valid_ds, test_ds = [gluon.data.vision.ImageFolderDataset(
        os.path.join(data_dir, 'train_valid_test', folder), flag=1) for folder in ['train_valid', 'test']]
    res["cifar_synsets"] = onp.array([len(train_valid_ds.synsets), len(test_ds.synsets), len(train_valid_ds),
                                      len(test_ds)], onp.float64)
    valid_ds = gluon.data.vision.ImageFolderDataset(os.path.join(data_dir, 'train_valid_test', 'valid'), flag=1)
    res["cifar_valid_labels"] = onp.array(sorted(label for _, label in valid_ds), onp.float64)
    loader = gluon.data.DataLoader(train_valid_ds.transform_first(transform_test), 4, shuffle=False,
                                   last_batch='keep')
    Xb, yb = next(iter(loader))
    _out(res, "cifar_batch_sum", Xb.sum(axis=(1, 2, 3)))
    _out(res, "cifar_batch_y", yb)
    transform_train = transforms.Compose([transforms.Resize(40), transforms.RandomResizedCrop(32, scale=(0.64, 1.0),
                                          ratio=(1.0, 1.0)), transforms.RandomFlipLeftRight(), transforms.ToTensor()])
    _out(res, "cifar_train_aug_shape", train_valid_ds.transform_first(transform_train)[0][0].shape)

    hotdog = os.path.join(tmp, "hotdog", "train")
    _write_images(os.path.join(hotdog, "hotdog"), ["a.jpg", "b.jpg"], 5, size=(14, 12), fmt="JPEG")
    _write_images(os.path.join(hotdog, "not-hotdog"), ["c.jpg"], 6, size=(12, 14), fmt="JPEG")
    train_imgs = gluon.data.vision.ImageFolderDataset(hotdog)
    img, label = train_imgs[2]
    res["hotdog_item"] = onp.array(list(img.shape) + [label], onp.float64)
    normalize = transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
    test_augs = transforms.Compose([transforms.Resize(10), transforms.CenterCrop(8), transforms.ToTensor(), normalize])
    Xh, yh = next(iter(gluon.data.DataLoader(train_imgs.transform_first(test_augs), 3)))
    _out(res, "hotdog_batch", Xh[:, :, 3, :4])
    _out(res, "hotdog_y", yh)

    voc = os.path.join(tmp, "VOC2012")
    os.makedirs(os.path.join(voc, "ImageSets", "Segmentation"))
    with open(os.path.join(voc, "ImageSets", "Segmentation", "train.txt"), "w") as f:
        f.write("2007_000032\n2007_000039\n")
    _write_images(os.path.join(voc, "JPEGImages"), ["2007_000032.jpg", "2007_000039.jpg"], 7, fmt="JPEG")
    _write_images(os.path.join(voc, "SegmentationClass"), ["2007_000032.png", "2007_000039.png"], 8)
    features, labels = d2l.read_voc_images(voc, True)
    _out(res, "voc_jpeg", features[1][:3, :3].astype("float32"))
    _out(res, "voc_png_indices", d2l.voc_label_indices(labels[0], d2l.voc_colormap2label())[:3, :4])
    return res


def lr_schedulers():
    """Chapter 12.11: FactorScheduler, MultiFactorScheduler, CosineScheduler with warmup
    and the book's own SquareRootScheduler through gluon.Trainer's lr_scheduler and
    set_learning_rate, training a small net."""
    d2l, np, npx = _setup()
    from mxnet import autograd, gluon, lr_scheduler
    from mxnet.gluon import nn
    res = {}
    sched = {
        "factor": lr_scheduler.FactorScheduler(step=2, factor=0.9, stop_factor_lr=1e-2, base_lr=2),
        "multifactor": lr_scheduler.MultiFactorScheduler(step=[3, 6], factor=0.5, base_lr=0.5),
        "cosine": lr_scheduler.CosineScheduler(max_update=8, base_lr=0.3, final_lr=0.01, warmup_steps=3),
        "poly": lr_scheduler.PolyScheduler(max_update=8, base_lr=0.3, pwr=2, final_lr=0.01)}
    for name, s in sched.items():
        res["sched_" + name] = onp.array([s(t) for t in range(10)], onp.float64)

    class SquareRootScheduler:
        def __init__(self, lr=0.1):
            self.lr = lr

        def __call__(self, num_update):
            return self.lr * pow(num_update + 1.0, -0.5)
    X = _arr(np, (16, 6), 1)
    y = np.array([0, 1, 2, 3] * 4)
    for name, s in (("cosine", lr_scheduler.CosineScheduler(max_update=6, base_lr=0.3, final_lr=0.01,
                                                             warmup_steps=2)),
                    ("sqrt", SquareRootScheduler(0.1))):
        net = nn.HybridSequential()
        net.add(nn.Dense(8, activation='relu'), nn.Dense(4))
        net.initialize()
        net(X)
        _setp(np, net, 2)
        net.hybridize()
        trainer = gluon.Trainer(net.collect_params(), 'sgd', {'lr_scheduler': s} if name == "cosine" else
                                {'learning_rate': 0.1})
        loss = gluon.loss.SoftmaxCrossEntropyLoss()
        lrs = []
        for epoch in range(3):
            for Xb, yb in _loader(gluon, (X, y), 8):
                with autograd.record():
                    l = loss(net(Xb), yb)
                l.backward()
                trainer.step(8)
                lrs.append(trainer.learning_rate)
            if name == "sqrt":
                trainer.set_learning_rate(s(epoch))
        res["train_lrs_" + name] = onp.array(lrs, onp.float64)
        _out(res, "train_out_" + name, net(X[:2]))
    return res


WORKFLOWS = (finetune_augment, fcn_segmentation, style_transfer, ssd, word2vec_glove, bert, sentiment_nli, gans,
             recsys, performance, image_files, lr_schedulers)
