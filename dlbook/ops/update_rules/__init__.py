"""The optimizers' update rules on raw arrays (``xp`` is NumPy or CuPy).

Each rule changes a weight and its state in place, so every Parameter
sharing the array sees the new values.  The optimizer classes
(``dlbook/optimizer/``) keep the state and settings and call them; the
update operators of ``nd`` (``nd.sgd_mom_update``, ``nd.adam_update``,
... in ``dlbook/ndarray/updates.py``) call them too.  On a GPU a rule is
one fused kernel (``dlbook/ops/kernels.py``), its array operations (the
kernel's twin) elsewhere.

* ``gradient``: ``clip(rescale_grad * grad [+ wd * weight])``, shared; a
  ``clip_gradient`` of None or below 0 means no clipping, as in MXNet's
  update operators, except in the rules MXNet writes in Python, which
  clip with any bound but None (``gradient.python_rule_gradient``);
* ``sgd``: plain SGD, momentum, Nesterov, signSGD, Signum, several
  weights per kernel, DCASGD and SGLD;
* ``adam``: Adam, AdamW, Adamax, Nadam, FTML;
* ``lamb``: LAMB, in MXNet's two phases around the layer's norms;
* ``adaptive``: AdaGrad (and Group AdaGrad, one rate per row), RMSProp
  (plain and centred), AdaDelta, Ftrl;
* ``norms``: sums of squares and L2 norms of whole arrays, LARS's
  learning rates, the finiteness check of loss scaling.

Kernel and twin round alike, as MXNet does: the rules MXNet writes in
C++ compute coefficients such as ``1 - beta2`` in the weight's dtype (the
kernel on ``T``, its twin on scalars cast by ``kernels.as_t``), those it
writes in Python compute them on the host in float64 and pass them on.
"""
