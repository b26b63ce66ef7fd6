"""Moving data between devices is an operator with a gradient.

``x.copyto(mx.cpu(1))`` records ``_copyto``; in backward the gradient is
copied back to where ``x`` lives.  It is the only operator whose input and
output contexts differ; the executor inserts it where a graph edge crosses
a ``ctx_group`` boundary.
"""

from .op import Op, register


@register('_copyto')
class CopyTo(Op):
    """y = x on another device;   dx = dy copied back to x's device."""

    defaults = {'ctx': None, 'src_ctx': None}

    def out_context(self, ctx):
        return self.attrs['ctx']

    def forward(self, xp, x):
        dst = self.attrs['ctx']
        return dst.backend.asarray(x, dst.device_id)

    def backward(self, xp, dy):
        src = self.attrs['src_ctx']
        return src.backend.asarray(dy, src.device_id)
