# The tutorial seed: requires_grad, grad_fn, backward() of a scalar and backward(w) of a tensor.
x = torch.ones(2, 2, requires_grad=True)
print(x)
print(x.grad_fn)
y = x + 2
print(y)
print(y.grad_fn is not None, type(y.grad_fn).__name__)
print(x.is_leaf, y.is_leaf)
z = y * y * 3
out = z.mean()
print(z, out)
out.backward()
print(x.grad)
out2 = x.sum()
out2.backward()
print(x.grad)  # accumulated
out3 = x.sum()
x.grad.data.zero_()
out3.backward()
print(x.grad)
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
y = 2 * x
z = y.view(2, 2)
print(z)
v = torch.tensor([[1.0, 0.1], [0.01, 0.001]], dtype=torch.float)
z.backward(v)
print(x.grad)
try:
    (2 * x).view(2, 2).backward()
except RuntimeError as e:
    print(type(e).__name__, e)
print(x.requires_grad)
print((x ** 2).requires_grad)
with torch.no_grad():
    print((x ** 2).requires_grad)
print(x.detach().requires_grad)
a = torch.ones(2, 2)
a = ((a * 3) / (a - 1))
print(a.requires_grad)
a.requires_grad_(True)
print(a.requires_grad)
b = (a * a).sum()
print(b.grad_fn.name())
x = torch.ones(2, 2, requires_grad=True)
y = x + 2
z = y * y * 3
out = z.mean()
print(out.grad_fn.next_functions[0][0].name(), out.grad_fn.next_functions[0][0].next_functions)
