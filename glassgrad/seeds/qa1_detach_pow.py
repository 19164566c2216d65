# The Q&A seed, first block: z = y**2 saves y, so zeroing y through a detach() alias breaks backward.
x = torch.tensor(3.0, requires_grad=True)
y = x + 1
z = y**2
c = y.detach()
c.zero_()
try:
    z.backward(retain_graph=True)
except RuntimeError as e:
    print(type(e).__name__, e)
print(x.grad, y._version, c._version, z.grad_fn, z.grad_fn.next_functions[0][0].name())
