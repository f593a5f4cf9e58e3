"""GluonCV 0.10.5's other training workflows (what scripts/instance, detection/center_net,
pose/simple_pose, segmentation with DeepLabV3/PSPNet/ICNet and action-recognition do each
iteration), on small synthetic inputs, for tests/test_client_gluoncv.py.

The same conventions as tests/gluoncv_client_cases.py (whose helpers these cases use): each
case runs through ``import mxnet`` and returns ``{name: numpy array}``;
tools/make_client_fixtures_gluoncv.py records MXNet 1.9.1's results
(tests/fixtures/extra/gluoncv_client/workflows.npz). Random draws (train transforms,
RCNN's proposal sampling, Dropout) differ between frameworks: their results are recorded by
shape or finiteness only.
"""
import os
import tempfile

import numpy as np

from gluoncv_client_cases import _mx, _np, _np_float, image, set_params, shape_of


def _uniform(rng, shape):
    return _mx().nd.array(rng.uniform(-1, 1, shape).astype("float32"))


def _ready(net, inputs, scale):
    """``net`` initialized, its shapes inferred by a training-mode forward of ``inputs`` (in
    prediction mode MXNet 1.9.1's oneDNN reorders convolution weights in place, and a 3D
    convolution's then fail to read after set_data: ``Check failed: to.IsDefaultData()``),
    its parameters set by ``set_params``."""
    mx = _mx()
    net.initialize()
    with mx.autograd.train_mode():
        net(*inputs)
    set_params(net, scale)
    return net


def _export_round_trip(net, name, x, **kwargs):
    """gluoncv.utils.export_block, then SymbolBlock.imports of the files, run on ``x``."""
    mx = _mx()
    import gluoncv as gcv  # pylint: disable=import-outside-toplevel
    folder = tempfile.mkdtemp()
    gcv.utils.export_block(os.path.join(folder, name), net, **kwargs)
    imported = mx.gluon.SymbolBlock.imports(os.path.join(folder, name + "-symbol.json"), ["data"],
                                            os.path.join(folder, name + "-0000.params"))
    return imported(x)


def case_mask_rcnn():
    """train_mask_rcnn.py's step: the training forward (RPN, RCNN sampling, mask head), the
    MaskTargetGenerator's targets, the RPN/RCNN/mask losses and a Trainer step; prediction
    (ids, scores, boxes, masks), export_block and its post-processing: data.transforms.mask's
    resize/flip/fill, viz.expand_mask and plot_mask."""
    mx = _mx()
    from gluoncv.data.transforms import mask as tmask  # pylint: disable=import-outside-toplevel
    from gluoncv.model_zoo import get_model  # pylint: disable=import-outside-toplevel
    from gluoncv.utils import viz  # pylint: disable=import-outside-toplevel
    _np_float()
    out = {}
    net = get_model("mask_rcnn_resnet18_v1b_coco", pretrained=False, pretrained_base=False)
    # a 96x128 image: fewer proposals and samples than the defaults (64 samples: the box
    # target generator's max_pos, 256 * 0.25, set at construction)
    net.rpn._train_pre_nms, net.rpn._train_post_nms = 400, 128
    net.rpn._test_pre_nms, net.rpn._test_post_nms, net._rpn_test_post_nms = 400, 32, 32
    net.sampler._num_proposal, net.sampler._num_sample, net.sampler._max_pos, net._num_sample = 128, 64, 16, 64
    net.mask_target._num_rois = 64
    net._rcnn_max_dets = 10
    net.initialize()
    rng = np.random.RandomState(21)
    x = mx.nd.array(rng.uniform(-1, 1, (1, 3, 96, 128)).astype("float32"))
    net(x)
    set_params(net, 0.03)
    # prediction: the parameters as set
    ids, scores, boxes, masks = net(x)
    out.update({"ids": ids, "scores": scores, "bboxes": boxes, "masks": masks})
    exported = _export_round_trip(net, "mask_rcnn", x, data_shape=(3, 96, 128), preprocess=False, layout="CHW")
    out.update({"exported_bboxes": exported[2], "exported_masks": exported[3]})
    # its post-processing as demo_mask_rcnn.py: masks pasted into the image, then drawn
    full, _ = viz.expand_mask(masks[0].asnumpy(), boxes[0].asnumpy(), (128, 96), scores[0].asnumpy(), thresh=-1)
    out["expand_mask"] = full
    out["fill"] = tmask.fill(masks[0].asnumpy()[:3], boxes[0].asnumpy()[:3], (128, 96))
    np.random.seed(0)  # plot_mask draws each mask's colour from numpy's global generator
    out["plot_mask"] = viz.plot_mask(image(4, 96, 128), full[:3])
    polys = [np.array([[10., 10.], [60., 12.], [40., 50.]]), np.array([[70., 20.], [90., 20.], [90., 40.]])]
    out["mask_resize"] = np.stack(tmask.resize(polys, (128, 96), (64, 48)))
    out["mask_flip"] = np.stack(tmask.flip(polys, (128, 96), flip_x=True, flip_y=True))
    # the mask targets of fixed rois: each roi's ground-truth mask cropped and resized
    gt_masks = np.zeros((1, 2, 96, 128), "float32")
    gt_masks[0, 0, 10:50, 20:70] = 1
    gt_masks[0, 1, 30:90, 60:120] = 1
    rois = rng.uniform(0, 1, (1, 64, 4)).astype("float32") * [[128, 96, 128, 96]]
    rois[..., 2:] = np.maximum(rois[..., 2:], rois[..., :2] + 8)
    matches = mx.nd.array(rng.randint(0, 2, (1, 64)).astype("float32"))
    cls_t = mx.nd.array(rng.randint(-1, 80, (1, 64)).astype("float32"))
    mask_t, mask_m = net.mask_target(mx.nd.array(rois), mx.nd.array(gt_masks), matches, cls_t)
    out.update({"mask_targets": mask_t, "mask_masks": mask_m})
    # train_mask_rcnn.py's losses on the training forward (its sampling is random: shapes)
    gt = mx.nd.array([[[20, 10, 70, 50, 3], [60, 30, 120, 90, 17]]])
    rpn_cls_loss = mx.gluon.loss.SigmoidBinaryCrossEntropyLoss(from_sigmoid=False)
    rcnn_cls_loss = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    rcnn_box_loss = mx.gluon.loss.HuberLoss()
    rcnn_mask_loss = mx.gluon.loss.SigmoidBinaryCrossEntropyLoss(from_sigmoid=False)
    trainer = mx.gluon.Trainer(net.collect_train_params(), "sgd", {"learning_rate": 0.001, "wd": 1e-4, "momentum": 0.9})
    net.hybridize(static_alloc=True)
    with mx.autograd.record():
        (cls_pred, box_pred, mask_pred, roi, _, matches, rpn_score, _, _, cls_targets, box_targets, box_masks,
         _) = net(x, gt.slice_axis(axis=-1, begin=0, end=4), gt.slice_axis(axis=-1, begin=4, end=5))
        rpn_score = rpn_score.squeeze(axis=-1)
        rpn_loss = rpn_cls_loss(rpn_score, mx.nd.zeros_like(rpn_score), mx.nd.ones_like(rpn_score))
        num_rcnn_pos = (cls_targets >= 0).sum()
        rcnn_loss = (rcnn_cls_loss(cls_pred, cls_targets, cls_targets.expand_dims(-1) >= 0) * cls_targets.size
                     / num_rcnn_pos + rcnn_box_loss(box_pred, box_targets, box_masks) * box_pred.size / num_rcnn_pos)
        mask_targets, mask_masks = net.mask_target(roi, mx.nd.array(gt_masks), matches, cls_targets)
        mask_loss = rcnn_mask_loss(mask_pred, mask_targets, mask_masks) * mask_targets.size / mask_masks.sum()
        total = rpn_loss.sum() + rcnn_loss.sum() + mask_loss.sum()
    total.backward()
    trainer.step(1)
    out["train_shapes"] = np.array([mask_pred.shape, mask_targets.shape, mask_masks.shape])
    out["loss_finite"] = np.array(np.isfinite([rpn_loss.sum().asscalar(), rcnn_loss.sum().asscalar(),
                                               mask_loss.sum().asscalar()]))
    net.hybridize(static_alloc=True)  # as validate: prediction again
    out["predict_after_shapes"] = np.array([o.shape + (0,) * (4 - o.ndim) for o in net(x)])
    return {k: _np(v) for k, v in out.items()}


def case_center_net():
    """train_center_net.py's step: CenterNetTargetGenerator, HeatmapFocalLoss and MaskedL1Loss
    on the training forward, a Trainer step; the prediction (heatmap NMS + CenterNetDecoder),
    the val transform and export_block; the DCNv2 model's heads."""
    mx = _mx()
    import gluoncv as gcv  # pylint: disable=import-outside-toplevel
    from gluoncv.data.transforms import presets  # pylint: disable=import-outside-toplevel
    from gluoncv.model_zoo import get_model  # pylint: disable=import-outside-toplevel
    from gluoncv.model_zoo.center_net.target_generator import CenterNetTargetGenerator  # pylint: disable=import-outside-toplevel
    x = _uniform(np.random.RandomState(31), (2, 3, 64, 64))
    net = _ready(get_model("center_net_resnet18_v1b_voc", pretrained=False, pretrained_base=False), [x], 0.05)
    out = {}
    val = presets.center_net.CenterNetDefaultValTransform(64, 64)
    vx, vlabel = val(image(2, 80, 100), np.array([[10, 12, 60, 70, 3]], "float32"))
    out.update({"val_image": vx, "val_label": vlabel})
    train = presets.center_net.CenterNetDefaultTrainTransform(64, 64, num_class=20, scale_factor=4)
    sample = train(image(3, 80, 100), np.array([[10, 12, 60, 70, 3], [40, 30, 95, 78, 11]], "float32"))
    out["train_sample_shapes"] = np.array([s.shape for s in sample])
    gen = CenterNetTargetGenerator(20, 16, 16)
    targets = [gen(np.array([[1.5, 2.2, 9.1, 12.7], [6.3, 5.0, 15.2, 14.9]], "float32"), np.array([3, 11])),
               gen(np.array([[0.4, 8.1, 7.7, 15.5]], "float32"), np.array([5]))]
    heatmap_t, wh_t, wh_m, reg_t, reg_m = [mx.nd.stack(*t) for t in zip(*targets)]
    for name, t in zip(["heatmap", "wh", "wh_mask", "center_reg", "center_reg_mask"],
                       [heatmap_t, wh_t, wh_m, reg_t, reg_m]):
        out["target_" + name] = t
    net.hybridize()
    ids, scores, boxes = net(x)
    out.update({"ids": ids[:, :20], "scores": scores[:, :20], "bboxes": boxes[:, :20]})
    out["exported_bboxes"] = _export_round_trip(net, "center_net", x, data_shape=(3, 64, 64),
                                                preprocess=False, layout="CHW")[2][:, :20]
    heatmap_loss = gcv.loss.HeatmapFocalLoss(from_logits=True)
    wh_loss = gcv.loss.MaskedL1Loss(weight=0.1)
    center_reg_loss = gcv.loss.MaskedL1Loss(weight=1.0)
    trainer = mx.gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 1e-3, "wd": 1e-4})
    net.hybridize()  # the cached graph was traced in prediction mode: traced again for training
    for step in range(2):
        with mx.autograd.record():
            heatmap_pred, wh_pred, center_reg_pred = net(x)
            losses = [heatmap_loss(heatmap_pred, heatmap_t), wh_loss(wh_pred, wh_t, wh_m),
                      center_reg_loss(center_reg_pred, reg_t, reg_m)]
            total = losses[0] + losses[1] + losses[2]
        mx.autograd.backward(total)
        trainer.step(2)
        out["loss_step%d" % step] = np.array([l.asscalar() for l in losses])
    # the DCNv2 variant: ModulatedDeformableConvolution in its upsampling layers
    dcn = _ready(get_model("center_net_resnet18_v1b_dcnv2_voc", pretrained=False, pretrained_base=False), [x[:1]],
                 0.03)
    with mx.autograd.train_mode():
        out["dcnv2_heatmap"], out["dcnv2_wh"], _ = dcn(x[:1])
    return {k: _np(v) for k, v in out.items()}


def case_simple_pose():
    """train_simple_pose.py's step: the train transform (its random affine: shapes),
    SimplePoseGaussianTargetGenerator, the weighted L2Loss on the heatmaps and a Trainer step;
    validation's get_final_preds, demo's heatmap_to_coord, transforms.pose's helpers and
    viz.plot_keypoints."""
    mx = _mx()
    from gluoncv.data.transforms import pose as tpose, presets  # pylint: disable=import-outside-toplevel
    from gluoncv.model_zoo import get_model  # pylint: disable=import-outside-toplevel
    from gluoncv.model_zoo.simple_pose.pose_target import SimplePoseGaussianTargetGenerator  # pylint: disable=import-outside-toplevel
    import matplotlib  # pylint: disable=import-outside-toplevel
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
    from gluoncv.utils import viz  # pylint: disable=import-outside-toplevel
    rng = np.random.RandomState(41)
    x = _uniform(rng, (2, 3, 64, 64))
    net = _ready(get_model("simple_pose_resnet18_v1b", pretrained=False, pretrained_base=False), [x], 0.05)
    out = {}
    joints = np.zeros((17, 3, 2), "float32")
    joints[:, 0, 0] = rng.uniform(5, 60, 17)
    joints[:, 1, 0] = rng.uniform(5, 60, 17)
    joints[:, :2, 1] = (rng.uniform(0, 1, 17) > 0.2)[:, None]
    pairs = [[1, 2], [3, 4], [5, 6], [7, 8], [9, 10], [11, 12], [13, 14], [15, 16]]
    train = presets.simple_pose.SimplePoseDefaultTrainTransform(17, pairs, image_size=(64, 64), heatmap_size=(16, 16))
    sample = train(image(5, 80, 60), {"bbox": [5, 8, 50, 70], "joints_3d": joints.copy()}, "x.jpg")
    out["train_sample_shapes"] = np.array([s.shape for s in sample[:3]])
    target, weight = SimplePoseGaussianTargetGenerator(17, (64, 64), (16, 16), 2)(joints)
    out.update({"target": target, "target_weight": weight})
    out["flip_joints"] = tpose.flip_joints_3d(joints.copy(), 64, pairs)
    out["affine"] = tpose.get_affine_transform(np.array([24., 32.]), np.array([0.4, 0.5]), 15, [16, 16])
    targets = mx.nd.array(np.stack([target, target[:, ::-1]]))
    weights = mx.nd.array(np.stack([weight, weight]))
    net.hybridize()
    heatmaps = net(x)
    out["heatmaps"] = heatmaps
    out["flip_heatmap"] = tpose.flip_heatmap(heatmaps, pairs, shift=True)
    center, scale = np.array([[24., 32.], [20., 30.]]), np.array([[0.5, 0.6], [0.4, 0.5]])
    preds, maxvals = tpose.get_final_preds(heatmaps, center, scale)
    out.update({"final_preds": preds, "final_maxvals": maxvals})
    coords, confidence = tpose.heatmap_to_coord(heatmaps, [[5, 8, 50, 70], [0, 0, 40, 60]])
    out.update({"coords": coords, "confidence": confidence})
    L = mx.gluon.loss.L2Loss()
    trainer = mx.gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 1e-3, "wd": 0})
    for step in range(2):
        with mx.autograd.record():
            loss = L(net(x), targets, weights)
        loss.backward()
        trainer.step(2)
        out["loss_step%d" % step] = loss
    ax = viz.plot_keypoints(image(6, 64, 64), coords, confidence, mx.nd.array([[[0]], [[0]]]),
                            mx.nd.array([[[5, 8, 40, 60]], [[0, 0, 40, 60]]]), mx.nd.array([[[0.9]], [[0.8]]]),
                            box_thresh=0.5, keypoint_thresh=0.0)
    out["keypoint_artists"] = np.array([len(ax.patches), len(ax.lines), len(ax.collections)])
    plt.close("all")
    return {k: _np(v) for k, v in out.items()}


def case_segmentation_models():
    """segmentation/train.py with DeepLabV3 and PSPNet (their auxiliary heads,
    MixSoftmaxCrossEntropyLoss(aux=True), poly LRScheduler with warmup), ICNet with ICNetLoss,
    test.py's MultiEvalModel (scales, flip, the sliding window) and SegmentationMetric; the
    DataParallelModel/Criterion on CPU contexts."""
    mx = _mx()
    import gluoncv as gcv  # pylint: disable=import-outside-toplevel
    from gluoncv.model_zoo import get_model  # pylint: disable=import-outside-toplevel
    from gluoncv.model_zoo.segbase import MultiEvalModel, get_segmentation_model  # pylint: disable=import-outside-toplevel
    from gluoncv.utils import LRScheduler, LRSequential  # pylint: disable=import-outside-toplevel
    from gluoncv.utils.metrics.segmentation import SegmentationMetric  # pylint: disable=import-outside-toplevel
    from gluoncv.utils.parallel import DataParallelCriterion, DataParallelModel  # pylint: disable=import-outside-toplevel
    rng = np.random.RandomState(51)
    x = _uniform(rng, (2, 3, 48, 48))
    label = mx.nd.array(rng.randint(-1, 21, (2, 48, 48)).astype("float32"))
    out = {}
    for name in ["deeplab", "psp"]:
        net = _ready(get_segmentation_model(name, dataset="pascal_voc", backbone="resnet50", pretrained=False,
                                            pretrained_base=False, crop_size=48, base_size=64, aux=True), [x], 0.03)
        net.hybridize()
        out[name + "_evaluated"] = net.evaluate(x)
        if name == "deeplab":
            evaluator = MultiEvalModel(net, 21, ctx_list=[mx.cpu(0)], flip=True, scales=[0.75, 1.25])
            scores = evaluator(x[0])
            out["multi_eval"] = scores
            metric = SegmentationMetric(21)
            metric.update(label[:1], scores)
            out["multi_eval_metric"] = np.array(metric.get())
        schedule = LRSequential([LRScheduler("linear", base_lr=0, target_lr=0.01, nepochs=1, iters_per_epoch=2),
                                 LRScheduler("poly", base_lr=0.01, nepochs=2, iters_per_epoch=2, power=0.9)])
        trainer = mx.gluon.Trainer(net.collect_params(), "sgd",
                                   {"lr_scheduler": schedule, "wd": 1e-4, "momentum": 0.9})
        criterion = gcv.loss.MixSoftmaxCrossEntropyLoss(aux=True, aux_weight=0.5)
        model, crit = DataParallelModel(net, [mx.cpu(0)]), DataParallelCriterion(criterion, [mx.cpu(0)])
        with mx.autograd.record(True):
            outputs = model(x)
            losses = crit(outputs, label)
            mx.autograd.backward(losses)
        trainer.step(2)
        out[name + "_train_shapes"] = np.array([len(outputs), len(outputs[0]), len(losses)] +
                                               list(outputs[0][0].shape) + list(outputs[0][1].shape))
        out[name + "_loss_finite"] = np.array(np.isfinite(losses[0].asnumpy()).all())
        out[name + "_lr"] = np.array([trainer.learning_rate] + [schedule(i) for i in range(5)])
    xi = _uniform(rng, (1, 3, 64, 64))
    icnet = _ready(get_model("icnet_resnet50_citys", pretrained=False, pretrained_base=False, crop_size=64,
                             base_size=64), [xi], 0.03)
    out["icnet_evaluated"] = icnet.evaluate(xi)
    with mx.autograd.record(True):
        preds = icnet(xi)
        loss = gcv.loss.ICNetLoss(crop_size=64)(*preds, mx.nd.array(rng.randint(-1, 19, (1, 64, 64)).astype("float32")))
    loss.backward()
    out["icnet_train_shapes"] = np.array([p.shape for p in preds])
    out["icnet_loss_finite"] = np.array(np.isfinite(loss.asnumpy()).all())
    return {k: _np(v) for k, v in out.items()}


def case_action_recognition():
    """train_recognizer.py's pieces: the video transforms on a clip of frames, a TSN-style
    2D recognizer (resnet18_v1b_kinetics400: frames in the batch) and I3D / R(2+1)D on a
    small clip, a training step and export_block."""
    mx = _mx()
    from gluoncv.data.transforms import video  # pylint: disable=import-outside-toplevel
    from gluoncv.model_zoo import get_model  # pylint: disable=import-outside-toplevel
    from gluoncv.model_zoo.action_recognition.actionrec_resnetv1b import ActionRecResNetV1b  # pylint: disable=import-outside-toplevel
    rng = np.random.RandomState(61)
    clip = [rng.randint(0, 255, (40, 48, 3)).astype("uint8") for _ in range(4)]
    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    out = {"val_transform": np.stack(video.VideoGroupValTransform(size=32, mean=mean, std=std)(clip))}
    out["center_crop"] = np.stack(video.VideoCenterCrop(24)(clip))
    out["three_crop"] = np.stack(video.VideoThreeCrop(40)(clip))
    out["ten_crop"] = np.stack(video.VideoTenCrop(24)(clip))
    out["to_tensor_normalize"] = np.stack(video.VideoNormalize(mean, std)(video.VideoToTensor()(clip)))
    out["short_side"] = np.array([c.shape for c in video.ShortSideRescale(30)(clip)])
    train = video.VideoGroupTrainTransform(size=(32, 32), scale_ratios=[1.0, 0.875], mean=mean, std=std)
    out["train_shapes"] = np.array([c.shape for c in train(clip)])
    frames = mx.nd.array(np.stack(out["val_transform"]).astype("float32"))  # (4, 3, 32, 32)
    # resnet18_v1b_kinetics400 does not pass pretrained_base on (its base's weights would be
    # downloaded): its class, built as that function does, without the head's Dropout
    tsn = _ready(ActionRecResNetV1b(depth=18, nclass=400, pretrained_base=False, num_segments=4, dropout_ratio=0.0,
                                    init_std=0.01), [frames], 0.05)
    tsn.hybridize()
    out["tsn"] = tsn(frames)
    # export_block runs a batch of one: TSN's segments are the batch, so HybridBlock.export
    prefix = os.path.join(tempfile.mkdtemp(), "tsn")
    tsn.export(prefix)
    out["tsn_exported"] = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")(frames)
    trainer = mx.gluon.Trainer(tsn.collect_params(), "sgd", {"learning_rate": 0.01, "momentum": 0.9, "wd": 1e-4})
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    with mx.autograd.record():
        loss = loss_fn(tsn(frames), mx.nd.array([3]))
    loss.backward()
    trainer.step(1)
    out["tsn_loss_step0"] = loss
    clip3d = _uniform(rng, (1, 3, 8, 32, 32))
    for name in ["i3d_resnet50_v1_kinetics400", "r2plus1d_resnet18_kinetics400"]:
        net = _ready(get_model(name, pretrained=False, pretrained_base=False, num_segments=1), [clip3d], 0.03)
        net.hybridize()
        key = name.split("_")[0]
        out[key] = net(clip3d)
    return {k: _np(v) for k, v in out.items()}


def case_siamrpn():
    """SiamRPN (siamrpn_alexnet_v2_otb15): the template and search branches, SiamRPNLoss of
    train.py on fixed targets; SiamRPNTracker's init and track on synthetic frames."""
    mx = _mx()
    import gluoncv as gcv  # pylint: disable=import-outside-toplevel
    from gluoncv.model_zoo import get_model  # pylint: disable=import-outside-toplevel
    from gluoncv.model_zoo.siamrpn.siamrpn_tracker import SiamRPNTracker  # pylint: disable=import-outside-toplevel
    rng = np.random.RandomState(71)
    template = mx.nd.array(rng.uniform(0, 255, (1, 3, 127, 127)).astype("float32"))
    search = mx.nd.array(rng.uniform(0, 255, (1, 3, 255, 255)).astype("float32"))
    net = _ready(get_model("siamrpn_alexnet_v2_otb15", pretrained=False, bz=1, is_train=True), [template, search], 0.02)
    cls_pred, loc_pred = net(template, search)
    out = {"cls": cls_pred, "loc": loc_pred}
    label_cls = mx.nd.array(rng.randint(-1, 2, (1, 5, 17, 17)).astype("float32"))
    flat = label_cls.asnumpy().ravel()
    pos, neg = mx.nd.array(np.where(flat == 1)[0][:16]), mx.nd.array(np.where(flat == 0)[0][:48])
    label_loc = mx.nd.array(rng.uniform(-1, 1, (1, 4, 5, 17, 17)).astype("float32"))
    weight = mx.nd.array((flat == 1).reshape(1, 5, 17, 17).astype("float32") / 16)
    with mx.autograd.record():
        cls_pred, loc_pred = net(template, search)
        cls_loss, loc_loss = gcv.loss.SiamRPNLoss(1)(cls_pred, loc_pred, label_cls, pos, neg, label_loc, weight)
        total = cls_loss + 1.2 * loc_loss
    total.backward()
    out["losses"] = np.array([cls_loss.asscalar(), loc_loss.asscalar()])
    # demo_siamrpn.py: the test-time net (its search branch sized for 287x287 crops) in
    # SiamRPNTracker, initialised on a box of the first frame, tracking two more
    tracked = _ready(get_model("siamrpn_alexnet_v2_otb15", pretrained=False, bz=1, is_train=False),
                     [template, mx.nd.zeros((1, 3, 287, 287))], 0.02)
    frames = [rng.randint(0, 255, (120, 160, 3)).astype("uint8") for _ in range(3)]
    tracker = SiamRPNTracker(tracked)
    tracker.init(frames[0], [40, 30, 50, 40], ctx=mx.cpu())
    results = [tracker.track(frame, ctx=mx.cpu()) for frame in frames[1:]]
    out["tracked_bboxes"] = np.array([r["bbox"] for r in results])
    out["tracked_scores"] = np.array([r["best_score"] for r in results])
    return {k: _np(v) for k, v in out.items()}


def _write_voc(root):
    """A VOC2012-like folder of four 120x160 images with two boxes each and a segmentation
    label. The images are PNG-encoded under VOC's .jpg names (the decoders read the
    content): a lossless encoding decodes to the same pixels whatever the JPEG library."""
    from PIL import Image  # pylint: disable=import-outside-toplevel
    voc = os.path.join(root, "VOC2012")
    for sub in ["JPEGImages", "Annotations", "SegmentationClass", "ImageSets/Main", "ImageSets/Segmentation"]:
        os.makedirs(os.path.join(voc, sub))
    xml = ("<annotation><size><width>160</width><height>120</height></size>%s</annotation>")
    obj = ("<object><name>%s</name><difficult>%d</difficult><bndbox><xmin>%d</xmin><ymin>%d</ymin><xmax>%d</xmax>"
           "<ymax>%d</ymax></bndbox></object>")
    names = ["%06d" % i for i in range(4)]
    for i, name in enumerate(names):
        pixels = np.random.RandomState(i).randint(0, 255, (120, 160, 3)).astype("uint8")
        Image.fromarray(pixels).save(os.path.join(voc, "JPEGImages", name + ".jpg"), format="PNG")
        with open(os.path.join(voc, "Annotations", name + ".xml"), "w") as f:
            f.write(xml % (obj % ("dog", 0, 10 + i, 20, 80, 100) + obj % ("person", i % 2, 60, 10, 150 - i, 110)))
        label = np.zeros((120, 160), "uint8")
        label[20:100, 10 + i:80] = 12
        label[:5] = 255
        Image.fromarray(label, mode="P").save(os.path.join(voc, "SegmentationClass", name + ".png"))
    for path in ["ImageSets/Main/trainval.txt", "ImageSets/Segmentation/train.txt", "ImageSets/Segmentation/val.txt"]:
        with open(os.path.join(voc, path), "w") as f:
            f.write("\n".join(names) + "\n")


def case_datasets_and_depth():
    """The scripts' data pipelines on a synthetic VOC folder: VOCDetection through the SSD
    and YOLOv3 val transforms in a DataLoader with worker processes, VOCSegmentation's val
    mode; and monodepth2's (scripts/depth) pieces: the depth net, disp_to_depth, SSIM,
    BackprojectDepth and Project3D, the reprojection through BilinearSampler."""
    mx = _mx()
    import gluoncv as gcv  # pylint: disable=import-outside-toplevel
    from gluoncv.data.batchify import Pad, Stack, Tuple  # pylint: disable=import-outside-toplevel
    from gluoncv.data.transforms import presets  # pylint: disable=import-outside-toplevel
    from gluoncv.model_zoo import get_model  # pylint: disable=import-outside-toplevel
    from gluoncv.model_zoo.monodepthv2.layers import (  # pylint: disable=import-outside-toplevel
        SSIM, BackprojectDepth, Project3D, disp_to_depth)
    root = tempfile.mkdtemp()
    _write_voc(root)
    dataset = gcv.data.VOCDetection(root=root, splits=[(2012, "trainval")])
    out = {"voc_label": dataset[1][1], "voc_image": dataset[2][0]}
    for name, transform, workers in [("ssd", presets.ssd.SSDDefaultValTransform(64, 64), 2),
                                     ("yolo", presets.yolo.YOLO3DefaultValTransform(64, 64), 0)]:
        loader = mx.gluon.data.DataLoader(dataset.transform(transform), batch_size=3, shuffle=False,
                                          batchify_fn=Tuple(Stack(), Pad(pad_val=-1)), last_batch="keep",
                                          num_workers=workers)
        batches = list(loader)
        out[name + "_images"] = mx.nd.concat(*[b[0] for b in batches], dim=0)
        out[name + "_labels"] = mx.nd.concat(*[b[1] for b in batches], dim=0)
    seg = gcv.data.VOCSegmentation(root=root, split="val", mode="val", base_size=64, crop_size=48,
                                   transform=mx.gluon.data.vision.transforms.ToTensor())
    out["seg_image"], out["seg_mask"] = seg[3]
    x = mx.nd.array(np.random.RandomState(81).uniform(0, 1, (1, 3, 64, 64)).astype("float32"))
    net = _ready(get_model("monodepth2_resnet18_kitti_stereo_640x192", pretrained=False, pretrained_base=False), [x],
                 0.03)
    disp = net(x)[-1]
    out["disp"] = disp
    _, depth = disp_to_depth(disp, 0.1, 100)
    ssim = SSIM()
    ssim.initialize()
    out["ssim"] = ssim(x, mx.nd.flip(x, axis=3))
    intrinsics = mx.nd.array([[[37.12, 0, 32, 0], [0, 122.88, 32, 0], [0, 0, 1, 0], [0, 0, 0, 1]]])
    motion = mx.nd.array(np.eye(4)[None] + np.random.RandomState(3).uniform(-0.02, 0.02, (1, 4, 4)))
    backproject, project = BackprojectDepth(1, 64, 64), Project3D(1, 64, 64)
    backproject.initialize()
    project.initialize()
    points = backproject(depth, mx.nd.linalg.inverse(intrinsics))
    pixels = project(points, intrinsics, motion)
    out.update({"points": points, "pixels": pixels, "warped": mx.nd.BilinearSampler(x, pixels)})
    return {k: _np(v) for k, v in out.items()}


CASES = {"mask_rcnn": case_mask_rcnn, "center_net": case_center_net, "simple_pose": case_simple_pose,
         "segmentation_models": case_segmentation_models, "action_recognition": case_action_recognition,
         "siamrpn": case_siamrpn, "datasets_and_depth": case_datasets_and_depth}
