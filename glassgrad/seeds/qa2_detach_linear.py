# The Q&A seed, second block: a linear op saves nothing that zero_() can invalidate.
x = torch.tensor(3.0, requires_grad=True)
y1 = x + 1
y2 = x**2
z = 3*y1 + 4*y2
c = y2.detach()
c.zero_()
z.backward(retain_graph=True)
print(x.grad)  # 27
# the answer's variant: z = 3*y1 + 4*y2**2 does raise
x = torch.tensor(3.0, requires_grad=True)
y1 = x + 1
y2 = x**2
z = 3*y1 + 4*y2**2
y2.detach().zero_()
try:
    z.backward()
except RuntimeError as e:
    print(type(e).__name__, e)
