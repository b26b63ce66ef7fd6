"""Run by test_dist.py under ``mpiexec -n 2``: Module.fit on dist_sync;
each worker reads half of the data; reports rescale_grad and weights."""
import json
import logging

import numpy as np

import dlbook as mx

kv = mx.kv.create('dist_sync')
rng = np.random.default_rng(0)
X = rng.normal(size=(64, 3)).astype(np.float32)
y = (X @ np.array([1.0, -2.0, 0.5], np.float32)).reshape(-1, 1)
part = slice(kv.rank * 32, (kv.rank + 1) * 32)
it = mx.io.NDArrayIter(X[part], y[part], batch_size=8,
                       label_name='lin_label')
data = mx.sym.var('data')
out = mx.sym.LinearRegressionOutput(
    mx.sym.FullyConnected(data, num_hidden=1, name='fc'),
    mx.sym.var('lin_label'), name='lin')
mod = mx.mod.Module(out, label_names=('lin_label',))
logging.disable(logging.CRITICAL)
mod.fit(it, num_epoch=20, kvstore=kv, optimizer='sgd',
        optimizer_params={'learning_rate': 0.1},
        initializer=mx.init.Zero())
w = mod.get_params()[0]['fc_weight'].asnumpy().ravel().tolist()
print('\nRESULT ' + json.dumps({'rank': kv.rank, 'w': w,
                                'rescale': mod._optimizer.rescale_grad}),
      flush=True)
