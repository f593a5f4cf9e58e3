"""GluonCV 0.10.5 training/evaluation workflows past the model zoo (what scripts/detection/ssd,
yolo, faster_rcnn, classification/imagenet and segmentation do each iteration), on synthetic
images, for tests/test_client_gluoncv.py.

Each case runs through ``import mxnet`` and returns ``{name: numpy array}`` of its
deterministic results. tools/make_client_fixtures_gluoncv.py runs them in MXNet 1.9.1 and
records the results (tests/fixtures/extra/gluoncv_client/expected.npz); the test runs them
through neogluon and compares. Random draws (the train transforms' augmentation, RCNN's
sampling) differ between frameworks: their results are recorded by shape only. Losses are
compared closely before the first parameter update, loosely after it (see the test's LOOSE:
float32 rounding, amplified by BatchNorm on a batch of one or two images).
"""
import os
import tempfile
import zlib

import numpy as np


def _mx():
    import mxnet  # pylint: disable=import-outside-toplevel
    return mxnet


def _np_float():
    # GluonCV 0.10.5's anchor code uses np.float, which numpy 1.24 removed
    if not hasattr(np, "float"):
        np.float = float


def set_params(net, scale=0.05):
    """Every parameter but the constants from a generator seeded by its structural name."""
    mx = _mx()
    for key, p in sorted(net._collect_params_with_prefix().items()):
        if isinstance(p, mx.gluon.Constant):
            continue
        rng = np.random.RandomState(zlib.crc32(key.encode()))
        if key.endswith(("running_var", "moving_var")):
            v = rng.uniform(0.5, 1.5, p.shape)
        elif key.endswith("gamma"):
            v = rng.uniform(0.8, 1.2, p.shape)
        else:
            v = rng.uniform(-scale, scale, p.shape)
        p.set_data(mx.nd.array(v.astype("float32")))


def image(seed, h, w):
    mx = _mx()
    return mx.nd.array(np.random.RandomState(seed).randint(0, 255, (h, w, 3)).astype("uint8"), dtype="uint8")


def _np(x):
    return x.asnumpy() if hasattr(x, "asnumpy") else np.asarray(x)


def digest(value, limit=256):
    """A result as recorded: small arrays whole, larger ones (images, anchors, targets) as
    their sum, absolute sum, root of the sum of squares and 64 evenly spaced elements, so the
    fixture stays small."""
    a = np.asarray(value)
    if a.size <= limit:
        return a
    flat = a.ravel().astype(np.float64)
    return np.concatenate([[flat.sum(), np.abs(flat).sum(), np.sqrt((flat * flat).sum())],
                           flat[::flat.size // 64][:64]])


def shape_of(x):
    return np.array(x.shape, dtype=np.int64)


LABEL = np.array([[20, 30, 200, 250, 3, 0], [100, 50, 380, 290, 7, 0]], "float32")


def case_transforms_and_batchify():
    """gluoncv.data.transforms (image, bbox, presets' test transforms), batchify, bbox utils."""
    mx = _mx()
    from gluoncv.data.transforms import bbox as tbbox, image as timage, presets  # pylint: disable=import-outside-toplevel
    from gluoncv.data.batchify import Append, Pad, Stack, Tuple  # pylint: disable=import-outside-toplevel
    from gluoncv.utils import bbox as ubbox  # pylint: disable=import-outside-toplevel
    im = image(1, 60, 80)
    out = {
        "resize_short_within": timage.resize_short_within(im, 40, 70),
        "imresize": timage.imresize(im, 30, 20),
        "resize_contain": timage.resize_contain(im, (50, 50))[0],
        "imagenet_eval": presets.imagenet.transform_eval(im, resize_short=40, crop_size=32),
        "ssd_test": presets.ssd.transform_test(im, short=48)[0],
        "yolo_test": presets.yolo.transform_test(im, short=48)[0],
        "rcnn_test": presets.rcnn.transform_test(im, short=48, max_size=100)[0],
    }
    a = np.array([[10, 20, 100, 200], [50, 50, 150, 150]], "float32")
    b = np.array([[15, 25, 90, 190], [0, 0, 60, 60], [40, 40, 160, 160]], "float32")
    out.update({"bbox_iou": ubbox.bbox_iou(a, b), "bbox_xywh_to_xyxy": ubbox.bbox_xywh_to_xyxy(a),
                "bbox_resize": tbbox.resize(a, (200, 300), (400, 150)),
                "bbox_flip": tbbox.flip(a, (200, 300), flip_x=True),
                "bbox_crop": tbbox.crop(a, (30, 30, 100, 100), allow_outside_center=True),
                "bbox_translate": tbbox.translate(a, 5, -3)})
    rows = [np.arange(6).reshape(2, 3).astype("float32"), np.arange(3).reshape(1, 3).astype("float32")]
    padded, length = Pad(pad_val=-1, ret_length=True)(rows)
    stacked, padded2 = Tuple(Stack(), Pad(pad_val=-1))([(np.ones(2), rows[0]), (np.zeros(2), rows[1])])
    appended = Append()([mx.nd.ones((2, 2)), mx.nd.zeros((3, 2))])
    out.update({"pad": padded, "pad_length": length, "tuple_stack": stacked, "tuple_pad": padded2,
                "append_shapes": np.array([x.shape for x in appended])})
    # the train transforms draw random crops and flips: their shapes only
    return {k: _np(v) for k, v in out.items()}


def _ssd():
    mx = _mx()
    from gluoncv.model_zoo import get_model  # pylint: disable=import-outside-toplevel
    _np_float()
    net = get_model("ssd_512_mobilenet1.0_voc", pretrained=False, pretrained_base=False)
    net.initialize()
    with mx.autograd.train_mode():
        _, _, anchors = net(mx.nd.zeros((1, 3, 128, 128)))
    set_params(net)
    return net, anchors


def case_ssd():
    """SSD's train transform and target generator, SSDMultiBoxLoss in a hybridized training
    step with Trainer, the prediction's NMS, VOC07MApMetric and export_block."""
    mx = _mx()
    import gluoncv as gcv  # pylint: disable=import-outside-toplevel
    from gluoncv.data.batchify import Stack, Tuple  # pylint: disable=import-outside-toplevel
    from gluoncv.data.transforms import presets  # pylint: disable=import-outside-toplevel
    from gluoncv.model_zoo.ssd.target import SSDTargetGenerator  # pylint: disable=import-outside-toplevel
    net, anchors = _ssd()
    out = {"anchors": anchors}
    train = presets.ssd.SSDDefaultTrainTransform(128, 128, anchors)
    batch = Tuple(Stack(), Stack(), Stack())([train(image(i, 300, 400), LABEL) for i in range(2)])
    out["train_batch_shapes"] = np.array([b.shape[:2] for b in batch])
    gen = SSDTargetGenerator(iou_thresh=0.5, stds=(0.1, 0.1, 0.2, 0.2), negative_mining_ratio=-1)
    gt_box = mx.nd.array([[[0.1, 0.1, 0.5, 0.6], [0.4, 0.3, 0.95, 0.9]]])
    cls_t, box_t, _ = gen(anchors, None, gt_box, mx.nd.array([[[3], [7]]]))
    out.update({"cls_targets": cls_t, "box_targets": box_t})
    x = mx.nd.array(np.random.RandomState(5).uniform(-1, 1, (1, 3, 128, 128)).astype("float32"))
    # prediction first (the parameters as set), then export_block, then the training step
    net.set_nms(nms_thresh=0.45, nms_topk=50, post_nms=10)
    net.hybridize(static_alloc=True, static_shape=True)
    ids, scores, boxes = net(x)
    out.update({"ids": ids, "scores": scores, "bboxes": boxes})
    folder = tempfile.mkdtemp()
    gcv.utils.export_block(os.path.join(folder, "ssd"), net, data_shape=(128, 128, 3), preprocess=True,
                           layout="HWC")
    imported = mx.gluon.SymbolBlock.imports(os.path.join(folder, "ssd-symbol.json"), ["data"],
                                            os.path.join(folder, "ssd-0000.params"))
    out["exported_bboxes"] = imported(image(9, 128, 128).astype("float32").expand_dims(0))[2]
    metric = gcv.utils.metrics.voc_detection.VOC07MApMetric(iou_thresh=0.5, class_names=net.classes)
    gt = mx.nd.array([[[12, 8, 120, 150, 14], [0, 0, 60, 60, 17]]])
    metric.update(boxes, ids, scores, gt.slice_axis(axis=-1, begin=0, end=4), gt.slice_axis(axis=-1, begin=4, end=5))
    out["voc07_map"] = np.array(metric.get()[1], dtype=np.float64)
    loss = gcv.loss.SSDMultiBoxLoss()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01, "wd": 5e-4, "momentum": 0.9})
    x2 = mx.nd.concat(x, x[:, :, ::-1], dim=0)
    for step in range(2):
        with mx.autograd.record():
            cls_pred, box_pred, _ = net(x2)
            total, cls_loss, box_loss = loss(cls_pred, box_pred, mx.nd.concat(cls_t, cls_t, dim=0),
                                             mx.nd.concat(box_t, box_t, dim=0))
        mx.autograd.backward(total)
        trainer.step(2)
        out["loss_step%d" % step] = np.array([cls_loss[0].asnumpy().sum(), box_loss[0].asnumpy().sum()])
    return {k: _np(v) for k, v in out.items()}


def case_yolo():
    """YOLOv3's train transform (its own target generation), YOLOV3PrefetchTargetGenerator,
    prediction, save/load_parameters and reset_class, the net's training forward returning
    YOLOV3Loss's four losses, Trainer steps."""
    mx = _mx()
    from gluoncv.data.transforms import presets  # pylint: disable=import-outside-toplevel
    from gluoncv.model_zoo import get_model  # pylint: disable=import-outside-toplevel
    from gluoncv.model_zoo.yolo.yolo_target import YOLOV3PrefetchTargetGenerator  # pylint: disable=import-outside-toplevel
    _np_float()
    net = get_model("yolo3_mobilenet1.0_voc", pretrained=False, pretrained_base=False)
    net.initialize()
    x = mx.nd.array(np.random.RandomState(5).uniform(-1, 1, (1, 3, 128, 128)).astype("float32"))
    net(x)
    set_params(net, 0.02)
    out = {}
    sample = presets.yolo.YOLO3DefaultTrainTransform(128, 128, net)(image(0, 300, 400), LABEL[:1])
    out["train_sample_shapes"] = np.array([list(s.shape) + [0] * (3 - len(s.shape)) for s in sample])
    with mx.autograd.train_mode():
        _, anchors, offsets, feat_maps, _, _, _, _ = net(x)
    gt = np.array([[20, 30, 100, 110], [60, 10, 120, 60]], "float32")
    targets = YOLOV3PrefetchTargetGenerator(num_class=20)(x, feat_maps, anchors, offsets, mx.nd.array(gt[None]),
                                                          mx.nd.array([[[3], [7]]]), None)
    for name, t in zip(["objectness", "center", "scale", "weights", "class"], targets):
        out["target_" + name] = t
    ids, scores, boxes = net(x)
    out.update({"ids": ids, "scores": scores, "bboxes": boxes})
    # fine-tuning's start: the parameters saved, loaded into a new net, its classes reset
    # (every new class reusing an old one's weights: no random initialisation)
    path = os.path.join(tempfile.mkdtemp(), "yolo.params")
    net.save_parameters(path)
    tuned = get_model("yolo3_mobilenet1.0_voc", pretrained=False, pretrained_base=False)
    tuned.load_parameters(path)
    tuned.reset_class(["person", "dog", "zebra"], reuse_weights={"person": "person", "dog": 11, "zebra": "cat"})
    out["reset_class_scores"], out["reset_class_bboxes"] = tuned(x)[1:]
    gt_pad = mx.nd.array(np.concatenate([gt, -np.ones((6, 4), "float32")])[None])
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.001, "wd": 5e-4, "momentum": 0.9})
    net.hybridize(static_alloc=True, static_shape=True)
    for step in range(2):
        with mx.autograd.record():
            losses = net(x, gt_pad, *targets)
            total = mx.nd.add_n(*[l.sum() for l in losses])
        mx.autograd.backward(total)
        trainer.step(1)
        out["loss_step%d" % step] = np.array([l.asscalar() for l in losses])
    net.hybridize(static_alloc=True, static_shape=True)  # as train_yolo3.py's validate: prediction again
    out["predict_after_shapes"] = np.array([o.shape for o in net(x)])
    return {k: _np(v) for k, v in out.items()}


def case_faster_rcnn():
    """Faster R-CNN's train transform with RPN targets, FasterRCNNTrainBatchify, the training
    forward (RPN + RCNN sampling), the RPN/RCNN losses of train_faster_rcnn.py, a Trainer step
    and the RCNN metrics; proposal sampling is random: shapes and finiteness."""
    mx = _mx()
    from gluoncv.data.batchify import FasterRCNNTrainBatchify  # pylint: disable=import-outside-toplevel
    from gluoncv.data.transforms import presets  # pylint: disable=import-outside-toplevel
    from gluoncv.model_zoo import get_model  # pylint: disable=import-outside-toplevel
    from gluoncv.model_zoo.rcnn.rpn.rpn_target import RPNTargetGenerator  # pylint: disable=import-outside-toplevel
    from gluoncv.utils.metrics import rcnn as rcnn_metrics  # pylint: disable=import-outside-toplevel
    _np_float()
    out = {}
    gen = RPNTargetGenerator(num_sample=10000, pos_iou_thresh=0.5, neg_iou_thresh=0.3, pos_ratio=1.0,
                             stds=(1., 1., 1., 1.), allowed_border=1000)
    anchors = mx.nd.array([[0, 0, 20, 20], [10, 10, 40, 40], [30, 30, 60, 60], [5, 5, 15, 50]])
    for name, t in zip(["cls", "box", "mask"], gen(mx.nd.array([[2, 2, 22, 22], [28, 30, 62, 58]]), anchors, 64, 64)):
        out["rpn_target_" + name] = t
    net = get_model("faster_rcnn_resnet50_v1b_voc", pretrained=False, pretrained_base=False)
    # a 96x128 image has 720 anchors: fewer proposals and samples than the 600x1000 defaults
    net.rpn._train_pre_nms, net.rpn._train_post_nms = 400, 64
    net.rpn._test_pre_nms, net.rpn._test_post_nms, net._rpn_test_post_nms = 400, 32, 32
    net.sampler._num_proposal, net.sampler._num_sample, net.sampler._max_pos, net._num_sample = 64, 32, 8, 32
    net.initialize()
    transform = presets.rcnn.FasterRCNNDefaultTrainTransform(96, 128, net, ashape=net.ashape)
    batch = FasterRCNNTrainBatchify(net, 1)([transform(image(0, 300, 400), LABEL)])
    data, label = batch[0].as_in_context(mx.cpu()), batch[1].as_in_context(mx.cpu())
    rpn_cls_t, rpn_box_t, rpn_box_m = [b[0].as_in_context(mx.cpu()) for b in batch[2:]]
    out["batch_shapes"] = np.array([data.shape[:3], label.shape, rpn_cls_t.shape + (0,), rpn_box_t.shape])
    rpn_cls_loss = mx.gluon.loss.SigmoidBinaryCrossEntropyLoss(from_sigmoid=False)
    rpn_box_loss = mx.gluon.loss.HuberLoss(rho=1 / 9.)
    rcnn_cls_loss = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    rcnn_box_loss = mx.gluon.loss.HuberLoss()
    trainer = mx.gluon.Trainer(net.collect_train_params(), "sgd", {"learning_rate": 0.001, "wd": 1e-4, "momentum": 0.9})
    net.hybridize(static_alloc=True)
    with mx.autograd.record():
        (cls_pred, box_pred, _, _, _, rpn_score, rpn_box, _, cls_t, box_t, box_m,
         _) = net(data, label.slice_axis(axis=-1, begin=0, end=4), label.slice_axis(axis=-1, begin=4, end=5))
        rpn_score = rpn_score.squeeze(axis=-1)
        num_rpn_pos = (rpn_cls_t >= 0).sum()
        rpn_loss = (rpn_cls_loss(rpn_score, rpn_cls_t, rpn_cls_t >= 0) * rpn_cls_t.size / num_rpn_pos
                    + rpn_box_loss(rpn_box, rpn_box_t, rpn_box_m) * rpn_box.size / num_rpn_pos)
        num_rcnn_pos = (cls_t >= 0).sum()
        rcnn_loss = (rcnn_cls_loss(cls_pred, cls_t, cls_t.expand_dims(-1) >= 0) * cls_t.size / num_rcnn_pos
                     + rcnn_box_loss(box_pred, box_t, box_m) * box_pred.size / num_rcnn_pos)
        total = rpn_loss.sum() + rcnn_loss.sum()
    total.backward()
    trainer.step(1)
    out["train_shapes"] = np.array([cls_pred.shape + (0,), box_pred.shape, rpn_box.shape + (0,)])
    out["loss_finite"] = np.array(np.isfinite(total.asscalar()))
    metrics = [rcnn_metrics.RPNAccMetric(), rcnn_metrics.RPNL1LossMetric(), rcnn_metrics.RCNNAccMetric(),
               rcnn_metrics.RCNNL1LossMetric()]
    metrics[0].update([rpn_cls_t, rpn_cls_t >= 0], [rpn_score])
    metrics[1].update([rpn_box_t, rpn_box_m], [rpn_box])
    metrics[2].update([cls_t], [cls_pred])
    metrics[3].update([box_t, box_m], [box_pred])
    out["metrics_finite"] = np.array([np.isfinite(m.get()[1]) for m in metrics])
    x, _, _ = presets.rcnn.FasterRCNNDefaultValTransform(96, 128)(image(7, 100, 150), LABEL[:1] / 3)
    net.hybridize(static_alloc=True)  # as train_faster_rcnn.py's validate: prediction again
    out["predict_shapes"] = np.array([o.shape for o in net(x.expand_dims(0))])
    return {k: _np(v) for k, v in out.items()}


def case_classification():
    """train_imagenet.py's step: label smoothing and mixup targets, SoftmaxCrossEntropyLoss
    (sparse_label=False), NAG with an LRSequential warmup + cosine schedule, the metrics,
    export_block with preprocessing; the LRScheduler modes."""
    mx = _mx()
    import gluoncv as gcv  # pylint: disable=import-outside-toplevel
    from gluoncv.model_zoo import get_model  # pylint: disable=import-outside-toplevel
    from gluoncv.utils import LRScheduler, LRSequential  # pylint: disable=import-outside-toplevel
    net = get_model("resnet18_v1b", classes=10)
    net.initialize()
    net(mx.nd.zeros((1, 3, 64, 64)))
    set_params(net)
    net.hybridize(static_alloc=True, static_shape=True)
    schedule = LRSequential([LRScheduler("linear", base_lr=0, target_lr=0.1, nepochs=1, iters_per_epoch=4),
                             LRScheduler("cosine", base_lr=0.1, target_lr=0, nepochs=3, iters_per_epoch=4)])
    trainer = mx.gluon.Trainer(net.collect_params(), "nag",
                               {"wd": 1e-4, "momentum": 0.9, "lr_scheduler": schedule})
    criterion = mx.gluon.loss.SoftmaxCrossEntropyLoss(sparse_label=False)
    data = mx.nd.array(np.random.RandomState(7).uniform(-1, 1, (4, 3, 64, 64)).astype("float32"))
    label = mx.nd.array([1, 3, 5, 7])
    lam, eta, classes = 0.7, 0.1, 10
    mixed = lam * data + (1 - lam) * data[::-1]
    on, off = 1 - eta + eta / classes, eta / classes
    target = lam * label.one_hot(classes, on_value=on, off_value=off) + \
        (1 - lam) * label[::-1].one_hot(classes, on_value=on, off_value=off)
    out = {"mixup_target": target}
    # export_block before the steps: a trained step's values are not reproducible to 1e-3, even
    # by MXNet (its multithreaded kernels sum in varying order: see the test's LOOSE)
    folder = tempfile.mkdtemp()
    gcv.utils.export_block(os.path.join(folder, "cls"), net, preprocess=True, layout="HWC")
    imported = mx.gluon.SymbolBlock.imports(os.path.join(folder, "cls-symbol.json"), ["data"],
                                            os.path.join(folder, "cls-0000.params"))
    raw = image(3, 64, 64).astype("float32").expand_dims(0)
    out["exported"] = imported(raw)
    out["direct"] = net(mx.nd.image.normalize(mx.nd.image.to_tensor(raw[0]), mean=(0.485, 0.456, 0.406),
                                              std=(0.229, 0.224, 0.225)).expand_dims(0))
    out["distillation"] = gcv.loss.DistillationSoftmaxCrossEntropyLoss(temperature=2, hard_weight=0.5)(
        out["direct"], label[:1], mx.nd.softmax(out["direct"] * 0.5))
    acc, top5 = mx.metric.Accuracy(), mx.metric.TopKAccuracy(5)
    for step in range(2):
        with mx.autograd.record():
            pred = net(mixed)
            loss = criterion(pred, target)
        loss.backward()
        trainer.step(4)
        if step == 0:  # the first step's predictions: the parameters as set
            acc.update([label], [pred])
            top5.update([label], [pred])
        out["loss_step%d" % step] = loss
        out["lr_step%d" % step] = np.array(trainer.learning_rate)
    out["accuracy"] = np.array([acc.get()[1], top5.get()[1]])
    out["schedule"] = np.array([schedule(i) for i in range(0, 16, 3)])
    for mode in ["step", "poly", "cosine", "linear", "constant"]:
        s = LRScheduler(mode, base_lr=0.1, target_lr=0.001, niters=20, nepochs=0, iters_per_epoch=5, power=0.9,
                        step_iter=[5, 15], step_factor=0.5)
        out["lr_" + mode] = np.array([s(i) for i in (0, 4, 10, 19, 25)])
    return {k: _np(v) for k, v in out.items()}


def case_segmentation():
    """segmentation/train.py's pieces on fixed predictions: MixSoftmaxCrossEntropyLoss with
    the auxiliary head, SegmentationMetric and its batch helpers, the
    test transform; the FCN model's training step (its head's Dropout draws: shapes)."""
    mx = _mx()
    import gluoncv as gcv  # pylint: disable=import-outside-toplevel
    from gluoncv.data.transforms.presets.segmentation import test_transform  # pylint: disable=import-outside-toplevel
    from gluoncv.utils.metrics.segmentation import (  # pylint: disable=import-outside-toplevel
        SegmentationMetric, batch_intersection_union, batch_pix_accuracy)
    rng = np.random.RandomState(12)
    pred = mx.nd.array(rng.uniform(-2, 2, (2, 21, 24, 24)).astype("float32"))
    aux = mx.nd.array(rng.uniform(-2, 2, (2, 21, 24, 24)).astype("float32"))
    target = mx.nd.array(rng.randint(-1, 21, (2, 24, 24)).astype("float32"))
    target[:, :12] = pred[:, :, :12].argmax(axis=1)  # half the pixels right
    out = {"mix_aux": gcv.loss.MixSoftmaxCrossEntropyLoss(aux=True, aux_weight=0.5)(pred, aux, target),
           "mix": gcv.loss.MixSoftmaxCrossEntropyLoss(aux=False)(pred, target)}
    metric = SegmentationMetric(21)
    metric.update(target, pred)
    out["metric"] = np.array(metric.get())
    out["pix_accuracy"] = np.array(batch_pix_accuracy(pred, target))
    out["intersection_union"] = np.stack(batch_intersection_union(pred, target, 21))
    out["test_transform"] = test_transform(image(1, 40, 50), mx.cpu())
    from gluoncv.model_zoo import get_model  # pylint: disable=import-outside-toplevel
    net = get_model("fcn_resnet50_voc", pretrained=False, pretrained_base=False, crop_size=48, base_size=64, aux=True)
    net.initialize()
    x = mx.nd.array(rng.uniform(-1, 1, (2, 3, 48, 48)).astype("float32"))
    net(x)
    set_params(net, 0.03)
    net.hybridize()
    out["evaluated"] = net.evaluate(x)  # prediction mode: no Dropout
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.001, "momentum": 0.9})
    criterion = gcv.loss.MixSoftmaxCrossEntropyLoss(aux=True)
    label = mx.nd.array(rng.randint(-1, 21, (2, 48, 48)).astype("float32"))
    with mx.autograd.record(True):
        losses = criterion(*net(x), label)
    mx.autograd.backward(losses)
    trainer.step(2)
    out["train_loss_shape"] = shape_of(losses)
    return {k: _np(v) for k, v in out.items()}


def case_viz():
    """utils.viz with matplotlib's Agg backend: boxes drawn, a palette, masks expanded."""
    import matplotlib  # pylint: disable=import-outside-toplevel
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
    from gluoncv.utils import viz  # pylint: disable=import-outside-toplevel
    mx = _mx()
    im = image(1, 60, 80)
    ax = viz.plot_bbox(im, mx.nd.array([[10, 10, 40, 40], [20, 5, 70, 50]]), scores=mx.nd.array([0.9, 0.3]),
                       labels=mx.nd.array([0, 1]), class_names=["a", "b"], thresh=0.5)
    out = {"patches": np.array(len(ax.patches)), "texts": np.array(len(ax.texts))}
    plt.close("all")
    out["palette"] = np.array(viz.get_color_pallete(np.arange(21).reshape(3, 7) % 21, "pascal_voc").convert("RGB"))
    masks, order = viz.expand_mask(np.random.RandomState(4).uniform(0, 1, (2, 14, 14)),
                            np.array([[10, 10, 40, 40], [20, 5, 70, 50]], "float32"), (80, 60),
                            scores=np.array([0.9, 0.8]))
    np.random.seed(0)  # plot_mask draws each mask's colour from numpy's global generator
    out.update({"masks": masks, "mask_order": order, "plot_mask": viz.plot_mask(im, masks)})
    return out


# Faster R-CNN first: in MXNet 1.9.1 its training forward failed after another case had run
# (deferred shape inference: KeyError on its box encoder's constant ``..._means``)
CASES = {"faster_rcnn": case_faster_rcnn, "transforms_and_batchify": case_transforms_and_batchify, "ssd": case_ssd,
         "yolo": case_yolo, "classification": case_classification, "segmentation": case_segmentation,
         "viz": case_viz}
# results recorded by shape or flag only (random draws): compared exactly
EXACT = ("shapes", "finite", "patches", "texts", "palette", "append", "pad_length")
