"""glassgrad.func (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap) and
autograd.grad(is_grads_batched=True), differential against torch.func."""
import gc
import weakref

from differential import catch, same


def f64(lib, values, grad=False):
    return lib.tensor(values, dtype=lib.float64, requires_grad=grad)


def data(lib):
    x = f64(lib, [0.3, -1.2, 2.0])
    y = f64(lib, [[1.0, 2.0, 0.5], [0.1, -0.3, 0.7]])
    return x, y


def scalar_f(x):
    return (x.sin() * x ** 2).sum()


def vector_f(x, y):
    return (y @ x).tanh()


def two_outputs(x, y):
    return (y @ x).exp(), (x * x).sum()


# -- grad, grad_and_value --------------------------------------------------------------------

def test_grad_scalar_multiple_args_argnums_has_aux():
    def program(lib):
        F = lib.func
        x, y = data(lib)
        loss = lambda x, y: (vector_f(x, y) ** 2).sum()    # noqa: E731
        return [F.grad(scalar_f)(x),
                F.grad(loss)(x, y), F.grad(loss, argnums=1)(x, y),
                F.grad(loss, argnums=(0, 1))(x, y), F.grad(loss, argnums=-1)(x, y),
                F.grad(lambda x, y: ((x * y).sum(), {"aux": x.cos(), "y": y}), has_aux=True)(
                    x, y[0]),
                F.grad_and_value(scalar_f)(x),
                F.grad_and_value(lambda x: (scalar_f(x), x * 2), has_aux=True)(x),
                F.grad(lambda d: (d["a"] * d["b"].exp()).sum())({"a": x, "b": x + 1}),
                F.grad(lambda x, y: (x ** 2).sum(), argnums=(0, 1))(x, y),   # unused: zeros
                F.grad(lambda x: x.sum().long())(x),       # integer output: zeros
                F.grad(lambda x, k: (x * k).sum())(x, 3.5),
                F.grad(lambda x, *, k: (x * k).sum())(x, k=2.0)]
    same(program)


def test_grad_composes_with_autograd():
    """Results carry history only when they depend on a tensor that requires grad outside."""
    def program(lib):
        F = lib.func
        x, y = data(lib)
        xr = x.clone().requires_grad_()
        g = F.grad(lambda x: (x ** 3).sum())(xr)
        w = f64(lib, 2.0, grad=True)
        gw = F.grad(lambda x: (x ** 2 * w).sum())(x)
        with lib.no_grad():
            ng = F.grad(scalar_f)(xr)
        out = [g, lib.autograd.grad(g.sum(), xr), gw, lib.autograd.grad(gw.sum(), w), ng,
               F.grad(scalar_f)(x)]
        o, fn = F.vjp(lambda a: a * w, x)
        out += [o, fn(lib.ones_like(x))]
        return out
    same(program)


def test_nested_grad_and_hessian():
    def program(lib):
        F = lib.func
        x, y = data(lib)
        t = f64(lib, 0.7)
        cubic = lambda a: a.sin() * a ** 3      # noqa: E731
        loss = lambda x, y: vector_f(x, y).pow(2).sum()     # noqa: E731
        return [F.grad(F.grad(cubic))(t), F.grad(F.grad(F.grad(cubic)))(t),
                F.hessian(scalar_f)(x), F.jacfwd(F.jacrev(scalar_f))(x),
                F.jacrev(F.jacrev(scalar_f))(x),
                F.hessian(loss, argnums=1)(x, y), F.hessian(loss, argnums=(0, 1))(x, y),
                F.jacrev(F.grad(loss), argnums=1)(x, y)]
    same(program)


# -- vjp, jvp ----------------------------------------------------------------------------------

def test_vjp():
    def program(lib):
        F = lib.func
        x, y = data(lib)
        out, fn = F.vjp(vector_f, x, y)
        outs, fn2 = F.vjp(two_outputs, x, y)
        o3, fn3, aux = F.vjp(lambda a: (a.exp(), a.sum()), x, has_aux=True)
        ct = f64(lib, [1.0, -2.0])
        return [out, fn(ct), fn(ct * 2), outs, fn2((ct, f64(lib, 3.0))), o3, fn3(x), aux,
                catch(fn, f64(lib, [1.0, 2.0, 3.0])), catch(fn, (ct,)),
                catch(fn2, ct)]
    same(program)


def test_jvp_matches_forward_mode():
    def program(lib):
        F = lib.func
        x, y = data(lib)
        tx, ty = f64(lib, [1.0, 0.5, -1.0]), f64(lib, [[0.0, 1.0, 0.0], [2.0, 0.0, -1.0]])
        return [F.jvp(vector_f, (x, y), (tx, ty)), F.jvp(two_outputs, (x, y), (tx, ty)),
                F.jvp(scalar_f, (x,), (tx,)),
                F.jvp(lambda a: (a.exp(), {"s": a.sum()}), (x,), (tx,), has_aux=True),
                F.jvp(lambda a: lib.ones(2), (x,), (tx,)),       # independent: zero tangent
                F.jvp(lambda a, b: a * b, (x, x), (tx, tx))]
    same(program)


# -- Jacobians ---------------------------------------------------------------------------------

def test_jacrev_and_jacfwd_agree_with_torch():
    def program(lib):
        F = lib.func
        x, y = data(lib)
        out = []
        for jac in (F.jacrev, F.jacfwd):
            out += [jac(vector_f)(x, y), jac(vector_f, argnums=1)(x, y),
                    jac(vector_f, argnums=(0, 1))(x, y), jac(two_outputs)(x, y),
                    jac(scalar_f)(x), jac(lambda a: a.exp())(f64(lib, 1.5)),
                    jac(lambda a: (a.exp(), a * 2), has_aux=True)(x),
                    jac(lambda a: a[:0] * 2)(x)]
        return out
    same(program)


# -- vmap --------------------------------------------------------------------------------------

def test_vmap_in_dims_out_dims_nested():
    def program(lib):
        F = lib.func
        x, y = data(lib)
        return [F.vmap(lambda a: a * 2)(y), F.vmap(lambda a: a.sum(), in_dims=1)(y),
                F.vmap(lambda a, b: a * b, in_dims=(0, None))(y, x),
                F.vmap(lambda a, b: a @ b, in_dims=(1, None))(y, f64(lib, [1.0, -1.0])),
                F.vmap(lambda a: (a.sum(), a * 2), out_dims=(0, 1))(y),
                F.vmap(lambda a: a * 2, out_dims=-1)(y),
                F.vmap(F.vmap(lambda a, b: a * b), in_dims=(0, None))(y, x),
                F.vmap(F.vmap(lambda a: a.exp(), in_dims=0), in_dims=1)(y),
                F.vmap(lambda p: p["a"] + p["b"], in_dims=({"a": 0, "b": None},))(
                    {"a": y, "b": x}),
                F.vmap(lambda a, k=1.0: a * k)(x, k=3.0),
                F.vmap(lambda a: a * 2)(lib.ones(0, 3)),
                F.vmap(lambda a: lib.ones(2), out_dims=None)(x),
                F.vmap(lambda a: 1.5, out_dims=None)(x),
                F.vmap(F.jacrev(lambda a: a.exp()))(y),
                F.vmap(lambda a: a * 2, chunk_size=1)(y)]
    same(program)


def test_vmap_per_example_gradients():
    def program(lib):
        F = lib.func
        w = f64(lib, [0.5, -0.2, 0.1])
        X = f64(lib, [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0], [0.0, 1.0, -1.0], [2.0, 2.0, 2.0]])
        T = f64(lib, [1.0, 0.0, -1.0, 2.0])

        def loss(w, xi, ti):
            return ((xi @ w - ti) ** 2).mean()
        per_example = F.vmap(F.grad(loss), in_dims=(None, 0, 0))(w, X, T)
        # the same numbers, one example at a time through plain autograd
        wr = w.clone().requires_grad_()
        rows = [lib.autograd.grad(loss(wr, X[i], T[i]), wr)[0] for i in range(4)]
        return [per_example, lib.stack(rows),
                F.vmap(F.grad_and_value(loss), in_dims=(None, 0, 0))(w, X, T),
                F.vmap(F.hessian(loss), in_dims=(None, 0, 0))(w, X, T)]
    same(program)


def test_vmap_gradient_flows_through():
    def program(lib):
        F = lib.func
        y = data(lib)[1].requires_grad_()
        out = F.vmap(lambda a: (a.sin() * a).sum())(y)
        return [out, lib.autograd.grad(out.sum(), y)]
    same(program)


def test_vmap_randomness():
    def program(lib):
        F = lib.func
        x = lib.ones(4, 3)
        lib.manual_seed(0)          # the draws themselves are torch's
        same_rows = F.vmap(lambda a: a * lib.rand(3), randomness="same")(x)
        diff_rows = F.vmap(lambda a: a * lib.rand(3), randomness="different")(x)
        return [same_rows, diff_rows, lib.rand(2), catch(F.vmap(lambda a: a + lib.rand(())), x),
                catch(F.vmap(lambda a: lib.rand(())), x),
                catch(F.vmap, lambda a: a, 0, 0, "foo"),
                bool((same_rows == same_rows[0]).all()), bool((diff_rows == diff_rows[0]).all()),
                lib.rand(2).shape]      # the generator works again afterwards
    same(program)


# -- errors --------------------------------------------------------------------------------------

def test_func_errors():
    def program(lib):
        F = lib.func
        x, y = data(lib)
        sq = lambda a, b: (a ** 2).sum()    # noqa: E731
        return [
            catch(F.grad(lambda a: ((a ** 2).sum(), 3.0), has_aux=True), x),
            catch(F.grad(lambda a: (a ** 2).sum(), has_aux=True), x),
            catch(F.grad(lambda a: a ** 2), x),
            catch(F.grad(lambda a: 3.0), x),
            catch(F.grad(lambda a: a.sum()), lib.tensor([1, 2])),
            catch(F.grad(lambda a: a ** 2), 2.0),
            catch(F.grad(sq, argnums=2), x, x), catch(F.grad(sq, argnums=-3), x, x),
            catch(F.grad(sq, argnums=[0]), x, x), catch(F.grad(sq, argnums=(0, 0)), x, x),
            catch(F.grad(sq, argnums=()), x, x), catch(F.grad(sq, argnums=(0, 1.0)), x, x),
            catch(F.vjp, lambda a: 3.0, x), catch(F.vjp, lambda a: a.long(), x),
            catch(F.vjp, lambda a: (), x), catch(F.vjp, lambda a: a, x, has_aux=True),
            catch(F.jvp, lambda a: a, x, x), catch(F.jvp, lambda a: a, (x,), (x, x)),
            catch(F.jvp, lambda a: a, (x,), (lib.ones(2, dtype=lib.float64),)),
            catch(F.jvp, lambda a: 1.0, (x,), (x,)), catch(F.jvp, lambda a: a, (), ()),
            catch(F.jvp, lambda a: a * 2, (lib.tensor([1, 2]),), (lib.tensor([1, 2]),)),
            catch(F.jvp, lambda a: a, (x,), (x,), has_aux=True),
            catch(F.jacrev(lambda a: a * 2), lib.tensor([1, 2])),
            catch(F.jacfwd(lambda a: a * 2), lib.tensor([1, 2])),
            catch(F.jacrev(lambda: x)), catch(F.jacrev(lambda a: 1.0), x),
            catch(F.jacrev, lambda a: a, 0, has_aux=False, chunk_size=0),
        ]
    same(program)


def test_vmap_errors():
    def program(lib):
        F = lib.func
        x, y = data(lib)

        def named(a):
            return a
        return [
            catch(F.vmap(lambda a: 1.0), x), catch(F.vmap(lambda a: None), x),
            catch(F.vmap(lambda a: (a, 2)), x), catch(F.vmap(lambda a: a * 2, out_dims=None), x),
            catch(F.vmap(lambda a, b: a + b), lib.ones(2), lib.ones(3)),
            catch(F.vmap(named, in_dims=None), x), catch(F.vmap(lambda: x)),
            catch(F.vmap(named, in_dims=1), x), catch(F.vmap(named, in_dims=-2), x),
            catch(F.vmap(named), 2.0),
            catch(F.vmap(lambda a, b: a, in_dims=(0,)), x, x),
            catch(F.vmap(named, in_dims=[0]), x), catch(F.vmap(named, in_dims=("a",)), x),
            catch(F.vmap(named, out_dims="a"), x), catch(F.vmap(named, out_dims=(0, 1)), x),
            F.vmap(named, out_dims=(0,))(x), catch(F.vmap(named, out_dims=2), x),
            catch(F.vmap(named, in_dims=(None,)), x),
            catch(F.vmap, named, 0, 0, "error", chunk_size=0),
        ]
    same(program)


def _set(t, index, value):
    t[index] = value
    return t


# what torch's vmap refuses for a batched operand (r: the example; u: a tensor from outside)
_REFUSED = {
    "item": lambda lib, r, u: r.sum().item(),
    "item_0d": lambda lib, r, u: r[0].item(),
    "float": lambda lib, r, u: float(r.sum()),
    "int": lambda lib, r, u: int(r.sum()),
    "index": lambda lib, r, u: [1, 2, 3][r.long()[0]],
    "format": lambda lib, r, u: f"{r.sum():.2f}",
    "bool": lambda lib, r, u: r if r.sum() > 0 else -r,
    "tolist": lambda lib, r, u: r.tolist(),
    "tolist_0d": lambda lib, r, u: r[0].tolist(),
    "numpy": lambda lib, r, u: r.numpy(),
    "detach_numpy": lambda lib, r, u: r.detach().numpy(),
    "array": lambda lib, r, u: r.__array__(),
    "data": lambda lib, r, u: r.data,
    "nonzero": lambda lib, r, u: r.nonzero(),
    "nonzero_long": lambda lib, r, u: lib.nonzero(r.long()),
    "nonzero_as_tuple": lambda lib, r, u: lib.nonzero(r, as_tuple=True)[0],
    "where_condition": lambda lib, r, u: lib.where(r > 1)[0],
    "mask": lambda lib, r, u: r[r > 1],
    "mask_0d": lambda lib, r, u: r[r.sum() > 1],
    "mask_of_unbatched": lambda lib, r, u: u[r > 1],
    "setitem_mask": lambda lib, r, u: _set(r.clone(), r > 1, 0.0),
    "masked_select": lambda lib, r, u: lib.masked_select(r, r > 1),
    "masked_select_unbatched_self": lambda lib, r, u: lib.masked_select(u, r > 1),
    "add_": lambda lib, r, u: u.clone().add_(r),
    "add_alpha": lambda lib, r, u: u.clone().add_(r, alpha=2),
    "add_broadcast": lambda lib, r, u: lib.ones(4, 3, dtype=lib.float64).add_(r),
    "add_one": lambda lib, r, u: lib.ones(1, dtype=lib.float64).add_(r),
    "sub_": lambda lib, r, u: u.clone().sub_(r),
    "mul_": lambda lib, r, u: u.clone().mul_(r),
    "div_": lambda lib, r, u: u.clone().div_(r + 1),
    "copy_": lambda lib, r, u: u.clone().copy_(r),
    "copy_2d": lambda lib, r, u: lib.zeros(2, 3, dtype=lib.float64).copy_(r),
    "pow_": lambda lib, r, u: u.clone().pow_(r),
    "clamp_": lambda lib, r, u: u.clone().clamp_(min=r),
    "addcmul_": lambda lib, r, u: u.clone().addcmul_(r, r),
    "lerp_": lambda lib, r, u: u.clone().lerp_(r, 0.5),
    "masked_fill_mask": lambda lib, r, u: u.clone().masked_fill_(r > 1, 0.0),
    "masked_fill_value": lambda lib, r, u: u.clone().masked_fill_(u > 1, r[0]),
    "fill_": lambda lib, r, u: u.clone().fill_(r[0]),
    "index_add_": lambda lib, r, u: u.clone().index_add_(0, lib.tensor([0, 1, 2]), r),
    "index_copy_": lambda lib, r, u: u.clone().index_copy_(0, lib.tensor([0, 1, 2]), r),
    "scatter_": lambda lib, r, u: u.clone().scatter_(0, lib.tensor([0, 1, 2]), r),
    "scatter_add_": lambda lib, r, u: u.clone().scatter_add_(0, lib.tensor([0, 1, 2]), r),
    "masked_scatter_": lambda lib, r, u: u.clone().masked_scatter_(u > 0, r),
    "index_put_": lambda lib, r, u: u.clone().index_put_((lib.tensor([0]),), r[:1]),
    "index_put_index": lambda lib, r, u: u.clone().index_put_((r.long() % 3,),
                                                             lib.tensor(1.0, dtype=lib.float64)),
    "addmm_": lambda lib, r, u: lib.zeros(3, 3, dtype=lib.float64).addmm_(r[:, None],
                                                                          r[None, :]),
    "setitem_slice": lambda lib, r, u: _set(u.clone(), slice(0, 2), r[:2]),
    "setitem_index": lambda lib, r, u: _set(u.clone(), 0, r[0]),
    "setitem_tensor_index": lambda lib, r, u: _set(u.clone(), lib.tensor([0]), r[:1]),
    "setitem_unbatched_mask": lambda lib, r, u: _set(u.clone(), u > 1, r[0]),
    "made_like_item": lambda lib, r, u: lib.zeros_like(r).sum().item(),
    "fresh_add_": lambda lib, r, u: lib.zeros(3, dtype=lib.float64).add_(r),
    "backward": lambda lib, r, u: (lib.ones(3, requires_grad=True) * 2).sum().backward(),
    "nested_item": lambda lib, r, u: lib.func.vmap(lambda s: s.item())(r),
    "nested_outer_item": lambda lib, r, u: lib.func.vmap(lambda s: s + r.sum().item())(u),
    "nested_inplace": lambda lib, r, u: lib.func.vmap(lambda s: r.clone().mul_(s))(r[None]),
}

# what it allows: an unbatched operand, a batched self, per-example work with a static shape
_ALLOWED = {
    "item": lambda lib, r, u: r + u.sum().item(),
    "float_index": lambda lib, r, u: r + float(u[1]) + [1, 2, 3][u[1].long()],
    "bool": lambda lib, r, u: r if (u > 0).any() else -r,
    "tolist_numpy": lambda lib, r, u: r + lib.tensor(u.tolist(), dtype=lib.float64) +
    lib.from_numpy(u.numpy()),
    "nonzero": lambda lib, r, u: r + u.nonzero().sum() + lib.where(u > 0)[0].sum(),
    "unbatched_mask": lambda lib, r, u: r[u > 1],
    "masked_select": lambda lib, r, u: lib.masked_select(r, u > 1),
    "setitem_mask": lambda lib, r, u: _set(r.clone(), u > 1, 0.0),
    "setitem_index": lambda lib, r, u: _set(r.clone(), 0, 5.0),
    "inplace_batched_self": lambda lib, r, u: r.clone().add_(u).mul_(2).copy_(u),
    "inplace_unbatched": lambda lib, r, u: u.clone().exp_() + r,
    "masked_fill": lambda lib, r, u: r.masked_fill(r > 1, 0.0),
    "index_by_batched": lambda lib, r, u: u[r.long() % 3],
    "argwhere_same_size": lambda lib, r, u: lib.argwhere(r >= 0),
    "len_iter_str": lambda lib, r, u: (str(r), r[:len(r)] + list(r)[0])[1],   # (str differs)
    "detach": lambda lib, r, u: r.detach() * 2,
    "count_nonzero": lambda lib, r, u: lib.count_nonzero(r),
    "nested": lambda lib, r, u: lib.func.vmap(lambda s: s * r.sum())(u),
    "made_like": lambda lib, r, u: lib.zeros_like(r).add_(r) + lib.ones_like(r).mul_(r) +
    lib.empty_like(r).copy_(r) + lib.full_like(r, 2.0).mul_(r) + lib.tensor(3.0),
}


def _vmap_case(case):
    def program(lib):
        x = lib.arange(6.0, dtype=lib.float64).reshape(2, 3)
        u = lib.arange(3.0, dtype=lib.float64)
        return catch(lib.func.vmap(lambda r: case(lib, r, u)), x)
    return program


def test_vmap_refuses_batched_operands_like_torch():
    for name, case in _REFUSED.items():
        result = same(_vmap_case(case))
        assert type(result).__name__ == "Raised", name     # torch refuses each of them


def test_vmap_allows_unbatched_operands_like_torch():
    for name, case in _ALLOWED.items():
        result = same(_vmap_case(case))
        assert type(result).__name__ != "Raised", (name, result)


def test_vmap_refusals_end_with_the_vmap():
    def program(lib):
        F = lib.func
        x = lib.arange(6.0).reshape(2, 3)
        refused = [catch(F.vmap(lambda r: r.sum().item()), x),
                   catch(F.vmap(F.vmap(lambda s: s.nonzero())), x[None])]
        out = F.vmap(lambda r: r * 2)(x)    # results of a vmap are ordinary tensors
        return refused + [out.sum().item(), out.nonzero(), out[out > 4], out.tolist(),
                          bool(out.sum() > 0), x.clone().add_(out)]
    same(program)


def test_vmap_refusal_inside_forward_ad_and_grad():
    def program(lib):
        F = lib.func
        fwAD = lib.autograd.forward_ad
        x = lib.arange(6.0, dtype=lib.float64).reshape(2, 3)

        def body(r):
            with fwAD.dual_level():
                d = fwAD.make_dual(lib.ones(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64))
                fwAD.unpack_dual(d * 2)
            return r.sum().item()       # still refused once the level has closed
        return [catch(F.vmap(body), x),
                catch(F.vmap(F.grad(lambda r: r.sum() * r.sum().item())), x),
                catch(F.vmap(F.grad(lambda r: r.sum() if r.sum() > 0 else -r.sum())), x),
                catch(F.vmap(F.grad(lambda r: r.sum() + sum(r.tolist()))), x),
                catch(F.vmap(F.grad(lambda r: r.sum() + r.nonzero().sum())), x),
                catch(F.vmap(F.grad(lambda r: r[r > 1].sum())), x),
                catch(F.vmap(F.jacrev(lambda r: r * r.sum().item())), x),
                catch(F.grad(lambda a: F.vmap(lambda r: r.sum().item())(a).sum()), x),
                F.vmap(F.grad(lambda r, w: r.sum() * w.item()), in_dims=(0, None))(
                    x, lib.tensor(2.0, dtype=lib.float64)),
                F.vmap(F.grad(lambda r: (r ** 2).sum()))(x)]
    same(program)


# -- autograd.grad(is_grads_batched=True) -----------------------------------------------------

def test_grad_is_grads_batched():
    def program(lib):
        ag = lib.autograd
        x = f64(lib, [1.0, 2.0, 3.0], grad=True)
        w = f64(lib, 2.0, grad=True)
        y, z = x ** 2, x * 3
        eye = lib.eye(3, dtype=lib.float64)
        x2 = f64(lib, [1.0, 2.0], grad=True)
        g2, = ag.grad((x2 ** 3).sum(), x2, create_graph=True)
        batched = ag.grad(y, x, lib.ones(2, 3, dtype=lib.float64), create_graph=True,
                          is_grads_batched=True)
        return [
            ag.grad(y, x, eye, retain_graph=True, is_grads_batched=True),
            ag.grad([y, z], x, [eye, 2 * eye], retain_graph=True, is_grads_batched=True),
            ag.grad(y.sum(), x, lib.ones(3, dtype=lib.float64), retain_graph=True,
                    is_grads_batched=True),
            ag.grad([y], [x, w], [eye], retain_graph=True, is_grads_batched=True,
                    allow_unused=True),
            ag.grad([y], [x, w], [eye], retain_graph=True, is_grads_batched=True,
                    materialize_grads=True),
            ag.grad(y, x, lib.ones(2, 3), retain_graph=True, is_grads_batched=True),
            batched, ag.grad(batched[0].sum(), x),
            ag.grad(g2, x2, lib.eye(2, dtype=lib.float64), is_grads_batched=True),
            catch(ag.grad, g2, x2, lib.eye(2, dtype=lib.float64), None, None, False, True,
                  None, True),     # the graph was freed by the batched call
            catch(ag.grad, y, x, lib.ones(2, 4), True, False, True, None, True),
            catch(ag.grad, y.sum(), x, None, True, False, True, None, True),
            catch(ag.grad, y.sum(), x, lib.ones(()), True, False, True, None, True),
            catch(ag.grad, [y, z], x, [lib.ones(2, 3), lib.ones(3, 3)], True, False, True,
                  None, True),
            catch(ag.grad, [y, z], x, [lib.ones(2, 3), None], True, False, True, None, True),
            catch(ag.grad, [y], [x, w], [lib.ones(2, 3)], True, False, True, None, True),
            catch(ag.grad, [y], [x], [lib.ones(0, 3)], True, False, True, None, True),
        ]
    same(program)


# -- vmap by batching rules ----------------------------------------------------------------------

def _mlp_loss(lib):
    F = lib.nn.functional

    def loss(p, xb, yb):
        h = (xb @ p[0] + p[1]).relu()
        return F.cross_entropy(h @ p[2] + p[3], yb)
    return loss


def test_vmap_runs_the_body_once_like_torch():
    """A body the rules cover runs once on the whole batch, as torch's does (the count is
    compared too), with torch's values."""
    def program(lib):
        F = lib.func
        x, y = data(lib)
        calls = []

        def body(a, b):
            calls.append(tuple(a.shape))
            return ((a * b).sin().sum(-1, keepdim=True) + a.t() @ b.t()).softmax(0).reshape(-1)
        z = f64(lib, [[[1.0, 2.0], [0.5, -1.0]], [[0.3, 0.2], [-0.7, 1.5]]])
        out = F.vmap(body, in_dims=(0, None))(z, z[0])
        out2 = F.vmap(lambda a: a.unsqueeze(0).expand(3, 2).transpose(0, 1).mean(), in_dims=1)(y)
        return [out, out2, calls, F.vmap(F.vmap(lambda a, b: (a @ b).exp()),
                                          in_dims=(0, None))(z, y[:, :2].t())]
    same(program)


def test_vmap_chunk_size_and_unbatched_outputs():
    def program(lib):
        F = lib.func
        x, y = data(lib)
        return [F.vmap(lambda a: a.cumsum(0) * 2, chunk_size=1)(y),
                F.vmap(lambda a: (a.exp(), x), chunk_size=2, out_dims=(1, 0))(y),
                F.vmap(lambda a: x * 2)(y)]
    same(program)


def test_per_sample_grads_like_torch():
    def program(lib):
        F = lib.func
        g = lib.Generator().manual_seed(3)
        params = (lib.randn(6, 5, generator=g, dtype=lib.float64),
                  lib.randn(5, generator=g, dtype=lib.float64),
                  lib.randn(5, 4, generator=g, dtype=lib.float64),
                  lib.randn(4, generator=g, dtype=lib.float64))
        X = lib.randn(7, 6, generator=g, dtype=lib.float64)
        Y = lib.tensor([0, 1, 2, 3, 0, 1, 2])
        per = F.vmap(F.grad(_mlp_loss(lib)), in_dims=(None, 0, 0))(params, X, Y)
        per_x = F.vmap(F.grad(lambda xb, w: (xb @ w).tanh().sum()), in_dims=(0, None))(X, params[0])
        return [per, per_x]
    same(program)


def test_per_sample_grads_fast_paths_like_torch():
    """The rules' shortcuts give torch's values: an ignored target (its example's mean loss is
    0/0), stacked outer products and stride-0 stacks (the lifted weights), a gradient that
    reaches a closure tensor requiring grad (kept differentiable, so autograd.grad reaches
    through it), and grad mode on outside with nothing requiring grad (no history)."""
    def program(lib):
        F = lib.func
        g = lib.Generator().manual_seed(4)
        params = tuple(lib.randn(*s, generator=g, dtype=lib.float64)
                       for s in ((6, 5), (5,), (5, 4), (4,)))
        X = lib.randn(7, 6, generator=g, dtype=lib.float64)
        Y = lib.tensor([0, 1, -100, 3, 0, 1, 2])
        per = F.vmap(F.grad(_mlp_loss(lib)), in_dims=(None, 0, 0))(params, X, Y)
        w = params[0].clone().requires_grad_()
        per_w = F.vmap(F.grad(lambda xb: (xb @ w).tanh().sum()))(X)
        return [per, per_w, lib.autograd.grad(per_w.sum(), w)[0]]
    same(program)


def test_transforms_under_no_grad_run_batched_like_torch():
    """Under no_grad, vmap of jacrev and of grad run the body once, as torch's (the counts
    are compared), with torch's values and no history."""
    def program(lib):
        F = lib.func
        g = lib.Generator().manual_seed(8)
        W = lib.randn(5, 3, generator=g, dtype=lib.float64)
        X = lib.randn(4, 3, generator=g, dtype=lib.float64)
        calls = []

        def h(v):
            calls.append(1)
            return (W @ v).sin()
        with lib.no_grad():
            out = [F.vmap(F.jacrev(h))(X), F.vmap(F.grad(lambda v: h(v).sum()))(X),
                   F.jacrev(h)(X[0]), F.jacrev(h, chunk_size=1)(X[0])]
        return out + [calls]
    same(program)


def test_stacked_outer_products_like_torch():
    """matmul/bmm whose inner size is 1 (a stack of outer products), bmm by a stride-0
    stack (one matrix expanded), with gradients."""
    def program(lib):
        g = lib.Generator().manual_seed(6)
        a = lib.randn(3, 4, 1, generator=g, requires_grad=True)
        b = lib.randn(3, 1, 5, generator=g, requires_grad=True)
        c = lib.randn(1, 5, generator=g, dtype=lib.float64)
        w = lib.randn(5, 2, generator=g, requires_grad=True)
        outs = [a @ b, lib.bmm(a, b), lib.matmul(a.double(), c), lib.matmul(a[0], b[0]),
                lib.matmul(a.unsqueeze(0), b), lib.bmm(b, w.expand(3, 5, 2))]
        zeros = lib.tensor([[[-1.], [2.]]]).expand(2, 2, 1) @ lib.tensor([[[0., 1.]]])
        grads = lib.autograd.grad(sum(o.sum() for o in outs[:2] + outs[5:]), (a, b, w))
        return outs + list(grads) + [str(zeros.tolist())]   # -0 products come out +0 (a GEMM's)
    same(program)


def test_jacobians_on_vmap_like_torch():
    def program(lib):
        F = lib.func
        g = lib.Generator().manual_seed(5)
        W = lib.randn(9, 4, generator=g, dtype=lib.float64)
        x = lib.randn(4, generator=g, dtype=lib.float64)

        def f(v):
            return (W @ v).tanh() * v.sum()
        return [F.jacrev(f)(x), F.jacrev(f, chunk_size=2)(x), F.jacrev(f, chunk_size=1)(x),
                F.jacfwd(f)(x), F.hessian(lambda v: (W @ v).sin().sum())(x),
                F.jacrev(F.jacrev(lambda v: (W @ v).exp().mean()))(x)]
    same(program)


def test_vmap_inplace_and_randomness_same_like_torch():
    """In-place writes into batched tensors run batched (the body once: the count is compared);
    randomness='same' draws once; what falls back to the per-example loop (dropout's batched
    operand, 'different') gives torch's values and leaves the generator where torch's does."""
    def program(lib):
        F = lib.func
        x, y = data(lib)
        calls = []

        def f(a):
            calls.append(1)
            c = a.clone()
            c.mul_(2).add_(x)
            c[0] = 5.0
            c.copy_(c * 3)
            return c
        lib.manual_seed(0)
        return [F.vmap(f)(y), len(calls),
                F.vmap(lambda a: a + lib.randn(3, dtype=lib.float64), randomness="same")(y),
                F.vmap(lambda a: lib.nn.functional.dropout(a, 0.5), randomness="same")(y),
                F.vmap(lambda a: a + lib.randn(3, dtype=lib.float64),
                       randomness="different")(y), lib.randn(2)]
    same(program)


_BATCHED_OPS = {   # each runs batched in both (one call of the body), compared with torch's
    "argmax": lambda L, a: a.argmax(), "argmax_dim": lambda L, a: a.argmax(-1),
    "max_dim": lambda L, a: a.max(-1)[0], "sort": lambda L, a: a.sort(-1)[1],
    "topk": lambda L, a: a.topk(2, -1)[0], "cumsum": lambda L, a: a.cumsum(-1),
    "norm": lambda L, a: a.norm(), "vector_norm": lambda L, a: L.linalg.vector_norm(a, dim=-1),
    "std": lambda L, a: a.std(0), "var": lambda L, a: a.var(), "prod": lambda L, a: a.prod(),
    "logsumexp": lambda L, a: a.logsumexp(-1), "diagonal": lambda L, a: a.diagonal(),
    "tril": lambda L, a: a.tril(), "flip": lambda L, a: a.flip(0), "roll": lambda L, a: a.roll(1, 1),
    "repeat": lambda L, a: a.repeat(2, 1), "cat": lambda L, a: L.cat([a, a * 2], 1),
    "stack": lambda L, a: L.stack([a, a.exp()], -1), "split": lambda L, a: a.split(1, 1)[1],
    "unbind": lambda L, a: a.unbind(1)[0], "narrow": lambda L, a: a.narrow(1, 1, 2),
    "index": lambda L, a: a[:, [0, 2]], "slice": lambda L, a: a[..., 1:],
    "gather": lambda L, a: a.gather(1, L.tensor([[0, 1], [2, 2]])),
    "index_select": lambda L, a: a.index_select(1, L.tensor([2, 0])),
    "where": lambda L, a: L.where(a > 0, a, a * 0.1), "clamp": lambda L, a: a.clamp(-0.5, 0.5),
    "pow": lambda L, a: a.abs() ** 1.5, "mm": lambda L, a: a @ a.t(),
    "einsum": lambda L, a: L.einsum("ij,kj->ik", a, a),
    "log_softmax": lambda L, a: L.nn.functional.log_softmax(a, 0),
    "linear": lambda L, a: L.nn.functional.linear(a, L.ones(4, 3, dtype=L.float64)),
    "layer_norm": lambda L, a: L.nn.functional.layer_norm(a, (3,)),
    "squeeze": lambda L, a: a.unsqueeze(0).squeeze(), "squeeze_dim": lambda L, a: a[:1].squeeze(0),
    "mse": lambda L, a: L.nn.functional.mse_loss(a, L.zeros(2, 3, dtype=L.float64)),
    "zeros_like": lambda L, a: L.zeros_like(a) + a,
    "zero_dim_promotion": lambda L, a: a.sum() * L.ones(3, dtype=L.float32),
    "permute": lambda L, a: a.permute(1, 0).contiguous().view(-1),
    "expand": lambda L, a: a[:, :1].expand(2, 5), "mean": lambda L, a: a.mean(),
    "bmm": lambda L, a: L.bmm(a.unsqueeze(0), a.t().unsqueeze(0)),
    "dot": lambda L, a: L.dot(a[0], a[1]), "mv": lambda L, a: L.mv(a, a[0]),
    "addmm": lambda L, a: L.addmm(a[:, :2], a, a.t(), beta=0.5, alpha=2),
    "sum_to_size": lambda L, a: a.sum_to_size(1, 3), "t": lambda L, a: a[0].t(),
    "pad": lambda L, a: L.nn.functional.pad(a, (1, 1)),
    "cross_entropy": lambda L, a: L.nn.functional.cross_entropy(a[0], L.tensor(1)),
    "cross_entropy_rows": lambda L, a: L.nn.functional.cross_entropy(a, L.tensor([1, 2])),
}


def test_vmap_batch_rules_like_torch():
    def program(lib):
        g = lib.Generator().manual_seed(11)
        x = lib.randn(4, 2, 3, generator=g, dtype=lib.float64)
        out = []
        for name, f in _BATCHED_OPS.items():
            calls = []

            def body(a, f=f, calls=calls):
                calls.append(1)
                return f(lib, a)
            out += [name, lib.func.vmap(body)(x), len(calls)]
        return out
    same(program)


def test_transforms_composed_with_vmap_like_torch():
    """vmap of hessian/jacrev/jacfwd/vjp/jvp/grad-of-grad, nested vmaps of grad, grad and
    jacrev of a vmap: torch's values, and every body once (the counts are compared)."""
    def program(lib):
        F = lib.func
        g = lib.Generator().manual_seed(2)
        W = lib.randn(5, 3, generator=g, dtype=lib.float64)
        X = lib.randn(4, 3, generator=g, dtype=lib.float64)
        calls = []

        def f(v):
            calls.append(1)
            return (W @ v).tanh().sum()

        def h(v):
            calls.append(2)
            return (W @ v).sin()
        one5, one3 = lib.ones(5, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        return [F.vmap(F.hessian(f))(X), F.vmap(F.jacrev(h))(X), F.vmap(F.jacfwd(h))(X),
                F.grad(lambda w: F.vmap(lambda x: (w @ x).tanh().sum())(X).sum())(W),
                F.vmap(F.vmap(F.grad(f)))(X.reshape(2, 2, 3)),
                F.vmap(F.grad(lambda v: F.grad(f)(v).sum()))(X),
                F.vmap(lambda x: F.vjp(h, x)[1](one5)[0])(X),
                F.vmap(lambda x: F.jvp(h, (x,), (one3,))[1])(X),
                F.jacrev(lambda x: F.vmap(h)(x))(X), calls]
    same(program)


def test_vmap_writes_through_views_like_torch():
    """A view the rules can only copy (a batch dim not in front) is written through as torch
    writes through its view: the body reruns per example rather than write into a copy."""
    def program(lib):
        F = lib.func
        y = f64(lib, [[1.0, 2.0, 0.5], [0.1, -0.3, 0.7]])

        def f(a):
            b = a.clone()
            b.view(-1).add_(1)
            b.diagonal().mul_(3)
            return b
        z = lib.stack([y, y * 2], 0)
        return [F.vmap(f, in_dims=1)(z), F.vmap(f)(z.transpose(1, 2))]
    same(program)


def test_jacobians_record_only_what_reaches_outside_like_torch():
    """jacrev, jacfwd, hessian and vmap of jacrev whose Jacobian reaches a closure tensor that
    requires grad keep its history (autograd.grad reaches through it), under grad mode and
    no_grad; ones that reach nothing outside have none (torch's values and requires_grad)."""
    def program(lib):
        F = lib.func
        g = lib.Generator().manual_seed(9)
        W = lib.randn(5, 3, generator=g, dtype=lib.float64)
        w = W.clone().requires_grad_()
        X = lib.randn(4, 3, generator=g, dtype=lib.float64)

        def transforms(M):
            return [F.jacrev(lambda v: (M @ v).tanh())(X[0]),
                    F.jacfwd(lambda v: (M @ v).sin())(X[0]),
                    F.hessian(lambda v: (M @ v).tanh().sum())(X[0]),
                    F.vmap(F.jacrev(lambda v: (M @ v).exp()))(X),
                    F.jacrev(lambda v: (M @ v).tanh(), chunk_size=2)(X[0])]
        free, reaching = transforms(W), transforms(w)
        grads = [lib.autograd.grad(j.sum(), w)[0] for j in reaching]
        with lib.no_grad():
            quiet = transforms(w)
        return free + reaching + grads + quiet
    same(program)


def test_transforms_free_their_results_without_the_collector_like_torch():
    """The results (and inputs) of vmap of grad, jacrev, hessian and vjp are freed when the
    last reference goes, as torch's are: no reference cycle keeps them (and their memory)
    until the garbage collector runs."""
    def program(lib):
        F = lib.func
        g = lib.Generator().manual_seed(1)
        W = lib.randn(5, 3, generator=g, dtype=lib.float64)
        X = lib.randn(4, 3, generator=g, dtype=lib.float64)
        params = (W.clone(), lib.randn(5, generator=g, dtype=lib.float64))

        def loss(p, x):
            return (p[0] @ x + p[1]).tanh().sum()
        gc.collect()
        gc.disable()
        try:
            outs = [F.vmap(F.grad(loss), in_dims=(None, 0))(params, X),
                    F.jacrev(lambda v: (W @ v).sin())(X[0]),
                    F.hessian(lambda v: (W @ v).tanh().sum())(X[0]),
                    F.vjp(lambda v: (W @ v).exp(), X[0])[0],
                    F.jacfwd(lambda v: (W @ v).exp())(X[0])]
            refs = [weakref.ref(t) for t in lib.utils._pytree.tree_flatten(outs)[0]]
            del outs
            return [r() is None for r in refs]
        finally:
            gc.enable()
    same(program)
