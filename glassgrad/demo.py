"""`make demo`: the seed programs, printed exactly as PyTorch prints them."""
import glassgrad as torch


def detach_question():
    print(">>> # 1. z = y**2 saves y; zeroing it through a detach() alias breaks backward")
    x = torch.tensor(3.0, requires_grad=True)
    y = x + 1
    z = y ** 2
    c = y.detach()
    c.zero_()
    try:
        z.backward(retain_graph=True)
    except RuntimeError as e:
        print(f"RuntimeError: {e}")
    print()
    print(">>> # 2. z = 3*y1 + 4*y2 needs no saved y2: zeroing it changes nothing")
    x = torch.tensor(3.0, requires_grad=True)
    y1 = x + 1
    y2 = x ** 2
    z = 3 * y1 + 4 * y2
    c = y2.detach()
    c.zero_()
    z.backward(retain_graph=True)
    print(x.grad)


def tutorial():
    print(">>> # 3. the tutorial: out = mean(3 * (x + 2)**2), d(out)/dx = 4.5")
    x = torch.ones(2, 2, requires_grad=True)
    print(x)
    y = x + 2
    print(y)
    print(y.grad_fn)
    z = y * y * 3
    out = z.mean()
    print(z, out)
    out.backward()
    print(x.grad)
    print()
    print(">>> # 4. a non-scalar output needs backward(w): the vector-Jacobian product")
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = 2 * x
    z = y.view(2, 2)
    print(z)
    v = torch.tensor([[1.0, 0.1], [0.01, 0.001]], dtype=torch.float)
    z.backward(v)
    print(x.grad)
    print()
    print(">>> # 5. no_grad and detach stop the recording")
    print(x.requires_grad, (x ** 2).requires_grad)
    with torch.no_grad():
        print((x ** 2).requires_grad)
    print(x.detach().requires_grad)


def main():
    detach_question()
    print()
    tutorial()


if __name__ == "__main__":
    main()
