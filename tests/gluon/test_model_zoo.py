"""gluon.model_zoo: MXNet 1.9.1's vision models, names, reprs and the
pretrained-file store (no network: downloads are served by a fake)."""

import hashlib
import io
import os
import urllib.error
import zipfile

import numpy as np
import pytest

import dlbook as mx
from dlbook import (
    _download,  # noqa: E402
    nd,
)
from dlbook.base import DLBookError
from dlbook.gluon.model_zoo import model_store, vision

ALL_MODELS = sorted(vision._models)


# ------------------------------------------------ independent param counts
#
# What ``sum(p.data().size for p in net.collect_params().values())`` gives
# in MXNet: every weight and bias, and for each BatchNorm over C channels
# gamma, beta, running_mean and running_var (4C; gamma and beta exist even
# when scale/center are off).  Counted here from the published layer
# tables, without building any block.


def conv(cin, cout, kh, kw=None, bias=False, groups=1):
    kw = kh if kw is None else kw
    return cin // groups * cout * kh * kw + (cout if bias else 0)


def bn(c):
    return 4 * c


def dense(cin, cout):
    return cin * cout + cout


def count_resnet(version, depth, classes, thumbnail=False):
    bottleneck = depth >= 50
    blocks = {
        18: [2, 2, 2, 2],
        34: [3, 4, 6, 3],
        50: [3, 4, 6, 3],
        101: [3, 4, 23, 3],
        152: [3, 8, 36, 3],
    }[depth]
    widths = [256, 512, 1024, 2048] if bottleneck else [64, 128, 256, 512]
    total = bn(3) if version == 2 else 0  # V2 input normalization
    if thumbnail:
        total += conv(3, 64, 3)
    else:
        total += conv(3, 64, 7) + bn(64)
    cin = 64
    for n, c in zip(blocks, widths):
        for i in range(n):
            down = i == 0 and cin != c
            if version == 1 and bottleneck:  # 1x1 convs keep biases
                total += (
                    conv(cin, c // 4, 1, bias=True)
                    + bn(c // 4)
                    + conv(c // 4, c // 4, 3)
                    + bn(c // 4)
                    + conv(c // 4, c, 1, bias=True)
                    + bn(c)
                )
            elif version == 1:
                total += conv(cin, c, 3) + bn(c) + conv(c, c, 3) + bn(c)
            elif bottleneck:
                total += (
                    bn(cin)
                    + conv(cin, c // 4, 1)
                    + bn(c // 4)
                    + conv(c // 4, c // 4, 3)
                    + bn(c // 4)
                    + conv(c // 4, c, 1)
                )
            else:
                total += bn(cin) + conv(cin, c, 3) + bn(c) + conv(c, c, 3)
            if down:
                total += conv(cin, c, 1) + (bn(c) if version == 1 else 0)
            cin = c
    if version == 2:
        total += bn(cin)
    return total + dense(cin, classes)


def count_vgg(depth, classes, batch_norm):
    per_stage = {
        11: [1, 1, 2, 2, 2],
        13: [2, 2, 2, 2, 2],
        16: [2, 2, 3, 3, 3],
        19: [2, 2, 4, 4, 4],
    }[depth]
    total, cin = 0, 3
    for n, f in zip(per_stage, [64, 128, 256, 512, 512]):
        for _ in range(n):
            total += conv(cin, f, 3, bias=True) + (bn(f) if batch_norm else 0)
            cin = f
    return (
        total
        + dense(512 * 7 * 7, 4096)
        + dense(4096, 4096)
        + dense(4096, classes)
    )


def count_alexnet(classes):
    return (
        conv(3, 64, 11, bias=True)
        + conv(64, 192, 5, bias=True)
        + conv(192, 384, 3, bias=True)
        + conv(384, 256, 3, bias=True)
        + conv(256, 256, 3, bias=True)
        + dense(256 * 6 * 6, 4096)
        + dense(4096, 4096)
        + dense(4096, classes)
    )


def count_densenet(depth, classes):
    init, k, config = {
        121: (64, 32, [6, 12, 24, 16]),
        161: (96, 48, [6, 12, 36, 24]),
        169: (64, 32, [6, 12, 32, 32]),
        201: (64, 32, [6, 12, 48, 32]),
    }[depth]
    total, c = conv(3, init, 7) + bn(init), init
    for i, n in enumerate(config):
        for _ in range(n):
            total += bn(c) + conv(c, 4 * k, 1) + bn(4 * k) + conv(4 * k, k, 3)
            c += k
        if i != len(config) - 1:
            total += bn(c) + conv(c, c // 2, 1)
            c //= 2
    return total + bn(c) + dense(c, classes)


def count_squeezenet(version, classes):
    def fire(cin, s, e):
        return (
            conv(cin, s, 1, bias=True)
            + conv(s, e, 1, bias=True)
            + conv(s, e, 3, bias=True)
        )

    fires = [
        (16, 64),
        (16, 64),
        (32, 128),
        (32, 128),
        (48, 192),
        (48, 192),
        (64, 256),
        (64, 256),
    ]
    if version == '1.0':
        total, cin = conv(3, 96, 7, bias=True), 96
    else:
        total, cin = conv(3, 64, 3, bias=True), 64
    for s, e in fires:
        total += fire(cin, s, e)
        cin = 2 * e
    return total + conv(512, classes, 1, bias=True)


def count_inception(classes):
    def bc(cin, cout, kh, kw=None):  # conv (no bias) + BN
        return conv(cin, cout, kh, kw) + bn(cout)

    def block_a(cin, pool):
        return (
            bc(cin, 64, 1)
            + bc(cin, 48, 1)
            + bc(48, 64, 5)
            + bc(cin, 64, 1)
            + bc(64, 96, 3)
            + bc(96, 96, 3)
            + bc(cin, pool, 1)
        )

    def block_c(c7):
        return (
            bc(768, 192, 1)
            + bc(768, c7, 1)
            + bc(c7, c7, 1, 7)
            + bc(c7, 192, 7, 1)
            + bc(768, c7, 1)
            + bc(c7, c7, 7, 1)
            + bc(c7, c7, 1, 7)
            + bc(c7, c7, 7, 1)
            + bc(c7, 192, 1, 7)
            + bc(768, 192, 1)
        )

    def block_e(cin):
        return (
            bc(cin, 320, 1)
            + bc(cin, 384, 1)
            + bc(384, 384, 1, 3)
            + bc(384, 384, 3, 1)
            + bc(cin, 448, 1)
            + bc(448, 384, 3)
            + bc(384, 384, 1, 3)
            + bc(384, 384, 3, 1)
            + bc(cin, 192, 1)
        )

    stem = (
        bc(3, 32, 3)
        + bc(32, 32, 3)
        + bc(32, 64, 3)
        + bc(64, 80, 1)
        + bc(80, 192, 3)
    )
    a = block_a(192, 32) + block_a(256, 64) + block_a(288, 64)
    b = bc(288, 384, 3) + bc(288, 64, 1) + bc(64, 96, 3) + bc(96, 96, 3)
    c = block_c(128) + block_c(160) + block_c(160) + block_c(192)
    d = (
        bc(768, 192, 1)
        + bc(192, 320, 3)
        + bc(768, 192, 1)
        + bc(192, 192, 1, 7)
        + bc(192, 192, 7, 1)
        + bc(192, 192, 3)
    )
    e = block_e(1280) + block_e(2048)
    return stem + a + b + c + d + e + dense(2048, classes)


def count_mobilenet(m, classes):
    def cbn(cin, cout, k, groups=1):
        return conv(cin, cout, k, groups=groups) + bn(cout)

    c0 = int(32 * m)
    total = cbn(3, c0, 3)
    dws = [
        int(x * m)
        for x in [32, 64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024]
    ]
    outs = [
        int(x * m)
        for x in [64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024] * 2
    ]
    for dw, c in zip(dws, outs):
        total += cbn(dw, dw, 3, groups=dw) + cbn(dw, c, 1)
    return total + dense(outs[-1], classes)


def count_mobilenet_v2(m, classes):
    def cbn(cin, cout, k, groups=1):
        return conv(cin, cout, k, groups=groups) + bn(cout)

    total = cbn(3, int(32 * m), 3)
    # (expansion t, output channels, repeats) of the paper's Table 2
    cin = int(32 * m)
    for t, c, n in [
        (1, 16, 1),
        (6, 24, 2),
        (6, 32, 3),
        (6, 64, 4),
        (6, 96, 3),
        (6, 160, 3),
        (6, 320, 1),
    ]:
        for _ in range(n):
            c_out = int(c * m)
            e = cin * t
            total += cbn(cin, e, 1) + cbn(e, e, 3, groups=e) + cbn(e, c_out, 1)
            cin = c_out
    last = int(1280 * m) if m > 1.0 else 1280
    return total + cbn(cin, last, 1) + conv(last, classes, 1)


def expected_count(name, classes):
    if name.startswith('resnet'):
        depth, version = name[6:].split('_v')
        return count_resnet(int(version), int(depth), classes)
    if name.startswith('vgg'):
        return count_vgg(int(name[3:5]), classes, name.endswith('_bn'))
    if name == 'alexnet':
        return count_alexnet(classes)
    if name.startswith('densenet'):
        return count_densenet(int(name[8:]), classes)
    if name.startswith('squeezenet'):
        return count_squeezenet(name[10:], classes)
    if name == 'inceptionv3':
        return count_inception(classes)
    if name.startswith('mobilenetv2_'):
        return count_mobilenet_v2(float(name[12:]), classes)
    return count_mobilenet(float(name[9:]), classes)


def symbolic_count(net, size):
    """Total parameter size from shape inference alone (no computation):
    trace the model on a Symbol and infer every shape for one image."""
    out = net(mx.sym.var('data'))
    args, outs, aux = out.infer_shape(data=(1, 3, size, size))
    names = out.list_arguments()[1:] + out.list_auxiliary_states()
    assert sorted(names) == sorted(net.collect_params().keys())
    total = sum(int(np.prod(s)) for s in args[1:] + aux)
    return total, outs[0]


def input_size(name):
    return 299 if name == 'inceptionv3' else 224


@pytest.mark.parametrize('name', ALL_MODELS)
def test_parameter_count_and_output_shape(name):
    net = vision.get_model(name, classes=10)
    total, out_shape = symbolic_count(net, input_size(name))
    assert total == expected_count(name, 10)
    assert out_shape == (1, 10)


# Totals for 1000 classes, as MXNet's sum(p.data().size) gives them.  The
# counts without BatchNorm running statistics are the well-known published
# sizes: AlexNet 61,100,840, VGG-16 138,357,544, SqueezeNet 1,248,424 /
# 1,235,496 (torchvision); ResNet-18 11,689,512 (torchvision) + 9,600
# running mean/var entries; MobileNet 1.0 4,253,864 (Keras, whose total
# also counts the moving statistics).
KNOWN_TOTALS = {
    'alexnet': 61100840,
    'vgg16': 138357544,
    'squeezenet1.0': 1248424,
    'squeezenet1.1': 1235496,
    'resnet18_v1': 11689512 + 9600,
    'mobilenet1.0': 4253864,
    'resnet50_v1': 25629032,
    'densenet121': 8062504,
    'inceptionv3': 23869000,
    'mobilenetv2_1.0': 3539136,
}


@pytest.mark.parametrize('name', sorted(KNOWN_TOTALS))
def test_known_totals_for_imagenet(name):
    assert expected_count(name, 1000) == KNOWN_TOTALS[name]
    total, _ = symbolic_count(vision.get_model(name), input_size(name))
    assert total == KNOWN_TOTALS[name]


def test_counted_size_is_sum_of_parameter_data():
    net = vision.resnet18_v1(classes=10, thumbnail=True)
    net.initialize()
    assert net(nd.ones((1, 3, 32, 32))).shape == (1, 10)
    size = sum(p.data().size for p in net.collect_params().values())
    assert size == count_resnet(1, 18, 10, thumbnail=True) == 11183306


# ------------------------------------------------------------ forward


@pytest.mark.parametrize(
    'name, kwargs, size',
    [
        ('resnet18_v2', {'thumbnail': True}, 32),
        ('resnet50_v1', {'thumbnail': True}, 32),
        ('resnet50_v2', {'thumbnail': True}, 32),
        ('mobilenet0.25', {}, 32),
        ('mobilenetv2_0.25', {}, 32),
        ('squeezenet1.1', {}, 224),
    ],
)
def test_forward_and_hybridize(name, kwargs, size):
    net = vision.get_model(name, classes=10, **kwargs)
    net.initialize(mx.init.Xavier())
    x = nd.random.uniform(shape=(2, 3, size, size))
    eager = net(x)
    assert eager.shape == (2, 10)
    net.hybridize()
    hybrid = net(x)
    np.testing.assert_allclose(
        hybrid.asnumpy(), eager.asnumpy(), rtol=1e-5, atol=1e-6
    )


def test_features_and_output_children():
    net = vision.resnet18_v1(classes=10, thumbnail=True)
    net.initialize()
    x = nd.ones((1, 3, 32, 32))
    feats = net.features(x)
    assert feats.shape == (1, 512, 1, 1)
    np.testing.assert_allclose(
        net.output(feats).asnumpy(), net(x).asnumpy(), rtol=1e-6
    )
    for name in ALL_MODELS:
        model = vision.get_model(name)
        assert isinstance(model.features, mx.gluon.nn.HybridSequential)
        assert isinstance(model.output, mx.gluon.HybridBlock)


# ------------------------------------------------- names and reprs


def test_parameter_names_match_mxnet():
    with mx.name.NameManager():
        resnet = vision.resnet18_v1()
        resnet2 = vision.resnet50_v2()
        mobile = vision.mobilenet_v2_0_25()
        dense = vision.densenet121()
        incep = vision.inception_v3()
        squeeze = vision.squeezenet1_1()
        vgg = vision.vgg16_bn()
    keys = list(resnet.collect_params().keys())
    assert keys[:5] == [
        'resnetv10_conv0_weight',
        'resnetv10_batchnorm0_gamma',
        'resnetv10_batchnorm0_beta',
        'resnetv10_batchnorm0_running_mean',
        'resnetv10_batchnorm0_running_var',
    ]
    assert keys[5] == 'resnetv10_stage1_conv0_weight'
    assert 'resnetv10_stage2_conv2_weight' in keys  # downsample conv
    assert keys[-2:] == ['resnetv10_dense0_weight', 'resnetv10_dense0_bias']
    assert len(keys) == 102
    assert list(resnet2.collect_params())[0] == 'resnetv20_batchnorm0_gamma'
    mkeys = list(mobile.collect_params())
    assert mkeys[0] == 'mobilenetv20_features_conv0_weight'
    assert mkeys[5] == 'mobilenetv20_features_linearbottleneck0_conv0_weight'
    assert mkeys[-1] == 'mobilenetv20_output_pred_weight'
    assert 'densenet0_stage1_conv0_weight' in dense.collect_params()
    assert 'densenet0_conv1_weight' in dense.collect_params()  # transition
    assert 'inception30_A1_conv0_weight' in incep.collect_params()
    assert 'inception30_E2_batchnorm8_running_var' in incep.collect_params()
    assert list(squeeze.collect_params())[-2:] == [
        'squeezenet0_conv25_weight',
        'squeezenet0_conv25_bias',
    ]
    assert list(vgg.collect_params())[-1] == 'vgg0_dense2_bias'
    assert resnet.prefix == 'resnetv10_' and resnet.name == 'resnetv10'


def test_print_matches_mxnet():
    lines = str(vision.resnet18_v1()).split('\n')
    assert lines[:10] == [
        'ResNetV1(',
        '  (features): HybridSequential(',
        '    (0): Conv2D(None -> 64, kernel_size=(7, 7), stride=(2, 2), '
        'padding=(3, 3), bias=False)',
        '    (1): BatchNorm(axis=1, eps=1e-05, momentum=0.9, fix_gamma=False, '
        'use_global_stats=False, in_channels=None)',
        '    (2): Activation(relu)',
        '    (3): MaxPool2D(size=(3, 3), stride=(2, 2), padding=(1, 1), '
        'ceil_mode=False, global_pool=False, pool_type=max, layout=NCHW)',
        '    (4): HybridSequential(',
        '      (0): BasicBlockV1(',
        '        (body): HybridSequential(',
        '          (0): Conv2D(64 -> 64, kernel_size=(3, 3), stride=(1, 1), '
        'padding=(1, 1), bias=False)',
    ]
    assert lines[-3:] == ['  )', '  (output): Dense(512 -> 1000, linear)', ')']
    squeeze = str(vision.squeezenet1_1()).split('\n')
    assert squeeze[:10] == [
        'SqueezeNet(',
        '  (features): HybridSequential(',
        '    (0): Conv2D(None -> 64, kernel_size=(3, 3), stride=(2, 2))',
        '    (1): Activation(relu)',
        '    (2): MaxPool2D(size=(3, 3), stride=(2, 2), padding=(0, 0), '
        'ceil_mode=True, global_pool=False, pool_type=max, layout=NCHW)',
        '    (3): HybridSequential(',
        '      (0): HybridSequential(',
        '        (0): Conv2D(None -> 16, kernel_size=(1, 1), stride=(1, 1))',
        '        (1): Activation(relu)',
        '      )',
    ]
    assert squeeze[10] == '      (1): HybridConcurrent('
    mobile = str(vision.mobilenet_v2_0_25()).split('\n')
    assert mobile[4:7] == ['    (2): RELU6(', '    ', '    )']


def test_get_model_unknown_name_and_options():
    with pytest.raises(ValueError) as info:
        vision.get_model('resnet19_v1')
    message = str(info.value)
    assert message.startswith(
        'Model resnet19_v1 is not supported. Available '
        'options are\n\talexnet\n\tdensenet121\n\t'
    )
    assert message.endswith('\n\tvgg19\n\tvgg19_bn')
    assert len(ALL_MODELS) == 34
    net = vision.get_model('ResNet18_V1', classes=7, thumbnail=True)
    assert isinstance(net, vision.ResNetV1) and net.output._units == 7
    with pytest.raises(AssertionError, match='Invalid number of layers'):
        vision.get_resnet(1, 20)
    with pytest.raises(AssertionError, match='Invalid resnet version'):
        vision.get_resnet(3, 18)
    # As in MXNet, a block's layers are made outside its name_scope, so
    # they take the enclosing scope's names (a ResNet stage's, in a net).
    with mx.name.NameManager():
        block = vision.BottleneckV2(
            256, 2, downsample=True, in_channels=64, prefix='blk_'
        )
    keys = list(block.collect_params())
    assert block.prefix == 'blk_' and len(keys) == 16
    assert keys[:2] == ['batchnorm0_gamma', 'batchnorm0_beta']
    assert keys[-1] == 'conv3_weight'


# ---------------------------------------------------- pretrained files

NAME = 'mobilenet0.25'


def _fixture_arrays(net, size=224):
    """Random values for every parameter of ``net``, keyed by the
    prefix-stripped names MXNet's model-zoo files use (``conv0_weight``)."""
    out = net(mx.sym.var('data'))
    args, _, aux = out.infer_shape(data=(1, 3, size, size))
    names = out.list_arguments()[1:] + out.list_auxiliary_states()
    rng = np.random.RandomState(0)
    return {
        name[len(net.prefix) :]: rng.uniform(0.1, 1, shape).astype('f4')
        for name, shape in zip(names, args[1:] + aux)
    }


@pytest.fixture
def fake_repo(tmp_path, monkeypatch):
    """No shared or cached models, and a network that serves only what the
    test puts in ``served``."""
    monkeypatch.delenv('DLBOOK_MODELS', raising=False)
    monkeypatch.delenv('MXNET_GLUON_REPO', raising=False)
    monkeypatch.setenv('DLBOOK_HOME', str(tmp_path / 'home'))
    monkeypatch.setenv('MXNET_HOME', str(tmp_path / 'mxnet'))
    monkeypatch.setattr(_download, '_RETRY_DELAY_S', 0)
    served = {}

    class Response(io.BytesIO):
        status = 200

    def urlopen(url, timeout=None, context=None):
        if url in served:
            return Response(served[url])
        raise urllib.error.URLError(f'offline test: {url}')

    monkeypatch.setattr(_download, '_urlopen', urlopen)
    return served


def _write_fixture(monkeypatch, folder):
    """Write a model-zoo style file for NAME; patch the SHA-1 table."""
    arrays = _fixture_arrays(vision.mobilenet0_25())
    tmp = os.path.join(str(folder), 'fixture.params')
    os.makedirs(str(folder), exist_ok=True)
    nd.save(tmp, {k: nd.array(v) for k, v in arrays.items()})
    with open(tmp, 'rb') as f:
        payload = f.read()
    sha1 = hashlib.sha1(payload).hexdigest()
    monkeypatch.setitem(model_store._model_sha1, NAME, sha1)
    os.remove(tmp)
    return arrays, payload, f'{NAME}-{sha1[:8]}'


def _assert_loaded(net, arrays):
    params = net.collect_params()
    assert len(params) == len(arrays)
    for key, value in arrays.items():
        np.testing.assert_array_equal(
            params[net.prefix + key].data().asnumpy(), value
        )


def test_pretrained_loads_prefix_stripped_file(
    tmp_path, fake_repo, monkeypatch
):
    arrays, payload, stem = _write_fixture(monkeypatch, tmp_path)
    assert 'conv0_weight' in arrays and 'dense0_bias' in arrays
    (tmp_path / f'{stem}.params').write_bytes(payload)
    path = model_store.get_model_file(NAME, root=str(tmp_path))
    assert path == str(tmp_path / f'{stem}.params')
    net = vision.get_model(
        NAME, pretrained=True, root=str(tmp_path), ctx=mx.cpu(1)
    )
    _assert_loaded(net, arrays)
    assert net.output.weight.list_ctx() == [mx.cpu(1)]
    assert str(net.features[0]).startswith('Conv2D(3 -> 8, kernel_size=')
    x = nd.ones((1, 3, 32, 32), ctx=mx.cpu(1))
    assert net(x).shape == (1, 1000)


def test_load_parameters_accepts_structural_names(tmp_path):
    net = vision.mobilenet0_25(classes=10)
    net.initialize()
    net(nd.ones((1, 3, 32, 32)))
    net.save_parameters(str(tmp_path / 'net.params'))
    assert 'features.0.weight' in nd.load(str(tmp_path / 'net.params'))
    other = vision.mobilenet0_25(classes=10)
    other.load_parameters(str(tmp_path / 'net.params'))
    for a, b in zip(
        net.collect_params().values(), other.collect_params().values()
    ):
        np.testing.assert_array_equal(a.data().asnumpy(), b.data().asnumpy())


def test_pretrained_download_unzips_and_verifies(
    tmp_path, fake_repo, monkeypatch
):
    arrays, payload, stem = _write_fixture(monkeypatch, tmp_path / 'src')
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, 'w') as archive:
        archive.writestr(f'{stem}.params', payload)
    url = f'{model_store.apache_repo_url}gluon/models/{stem}.zip'
    fake_repo[url] = buffer.getvalue()
    cache = tmp_path / 'home' / 'models'
    (cache).mkdir(parents=True)
    (cache / f'{stem}.params').write_bytes(b'corrupt')  # re-downloaded
    net = vision.get_model(NAME, pretrained=True)
    _assert_loaded(net, arrays)
    assert (cache / f'{stem}.params').read_bytes() == payload
    assert sorted(os.listdir(cache)) == [f'{stem}.params']  # no leftovers
    # a mirror named by MXNET_GLUON_REPO, and a download with a bad hash
    monkeypatch.setenv('MXNET_GLUON_REPO', 'https://mirror.example/mx')
    mirror = f'https://mirror.example/mx/gluon/models/{stem}.zip'
    assert model_store.model_url(stem) == mirror
    bad = io.BytesIO()
    with zipfile.ZipFile(bad, 'w') as archive:
        archive.writestr(f'{stem}.params', b'tampered')
    fake_repo[mirror] = bad.getvalue()
    os.remove(cache / f'{stem}.params')
    root = tmp_path / 'elsewhere'
    with pytest.raises(ValueError, match='different hash'):
        model_store.get_model_file(NAME, root=str(root))
    assert os.listdir(root) == []


def test_pretrained_offline_error(tmp_path, fake_repo, monkeypatch):
    monkeypatch.setenv('DLBOOK_MODELS', str(tmp_path / 'shared'))
    stem = f'{NAME}-{model_store.short_hash(NAME)}'
    assert stem == 'mobilenet0.25-9f83e440'
    with pytest.raises(DLBookError) as info:
        vision.mobilenet0_25(pretrained=True)
    message = str(info.value)
    url = (
        'https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/'
        f'gluon/models/{stem}.zip'
    )
    cache = str(tmp_path / 'home' / 'models')
    for part in [
        f'{stem}.params',
        str(tmp_path / 'shared'),
        cache,
        str(tmp_path / 'mxnet' / 'models'),
        url,
        'offline test',
        f'copy {stem}.params into {cache}',
        'root=',
        'DLBOOK_MODELS',
        'MXNET_GLUON_REPO',
    ]:
        assert part in message
    with pytest.raises(
        ValueError, match='Pretrained model for vgg7 is not available.'
    ):
        model_store.get_model_file('vgg7')


def test_shared_folder_and_purge(tmp_path, fake_repo, monkeypatch):
    arrays, payload, stem = _write_fixture(monkeypatch, tmp_path)
    shared = tmp_path / 'shared'
    shared.mkdir()
    (shared / f'{stem}.params').write_bytes(payload)
    monkeypatch.setenv('DLBOOK_MODELS', str(shared))
    assert model_store.get_model_file(NAME) == str(shared / f'{stem}.params')
    root = tmp_path / 'root'
    root.mkdir()
    (root / f'{stem}.params').write_bytes(payload)
    (root / 'notes.txt').write_text('kept')
    model_store.purge(str(root))
    assert os.listdir(root) == ['notes.txt']
