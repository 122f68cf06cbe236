"""The API reference of docs/python.md, generated from the docstrings:
``python -m rnnwb.reference`` prints it (test_docs.py checks that the doc holds it)."""

from __future__ import annotations

import inspect

import rnnwb


def _first_paragraph(obj) -> str:
    doc = inspect.getdoc(obj) or ""
    name = getattr(obj, "__name__", "")
    if name and doc.startswith(name + "("):  # nanobind's: the signature, then the docstring
        doc = doc.split("\n", 1)[1].strip() if "\n" in doc else ""
    return " ".join(doc.split("\n\n")[0].split())


def _signature(obj) -> str:
    try:
        try:
            sig = inspect.signature(obj, eval_str=True)
        except (NameError, TypeError):
            sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return "(...)"
    params = [p for name, p in sig.parameters.items() if name != "self"]
    return str(sig.replace(parameters=params)).replace("typing.", "")


def _entries() -> list[tuple[str, object]]:
    out = []
    for name in rnnwb.__all__:
        obj = getattr(rnnwb, name)
        out.append((f"rnnwb.{name}", obj))
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            for member, value in vars(obj).items():
                if member.startswith("_") and member != "__iter__":
                    continue
                if isinstance(value, (classmethod, staticmethod)):
                    value = getattr(obj, member)  # bound: no cls
                if callable(value) or isinstance(value, property):
                    out.append((f"rnnwb.{name}.{member}", value))
    try:
        from rnnwb.torch import GraphModule
        out.append(("rnnwb.torch.GraphModule", GraphModule))
        out.append(("rnnwb.torch.GraphModule.forward", GraphModule.forward))
        out.append(("rnnwb.torch.GraphModule.weights", GraphModule.weights))
    except ImportError:
        pass
    return out


def markdown() -> str:
    lines = []
    for name, obj in _entries():
        if isinstance(obj, property):
            head = f"`{name}` (property)"
            obj = obj.fget
        elif inspect.isclass(obj) or callable(obj):
            sig = _signature(obj)
            doc = inspect.getdoc(obj) or ""
            if sig == "(...)" and doc.startswith(getattr(obj, "__name__", "?") + "("):
                sig = doc.split("\n", 1)[0][len(obj.__name__):]
            head = f"`{name}{sig}`"
        else:
            head = f"`{name}`"
        lines.append(f"- {head}: {_first_paragraph(obj)}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
