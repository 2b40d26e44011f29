"""Running Helion kernels for validation: on the CPU they run as the Triton code Helion generates,
under Triton's interpreter, each kernel at its first (or Helion's default) config."""

from __future__ import annotations

import os

from translator.dialects.base import Runner
from translator.ir import nodes as ir

#: "SMs" of a CPU device: fewer than the tiles of any test size, so that persistent kernels
#: (``pid_type="persistent_*"``, which size their grid by it) loop over several tiles.
CPU_SMS = 4


def _prepare(device: str) -> None:
    if device != "cpu":
        return
    from translator.dialects.triton.runner import RUNNER as TRITON

    assert TRITON.prepare is not None
    TRITON.prepare(device)
    # Helion refuses its own interpreter together with Triton's, whose runs it needs.
    os.environ.pop("HELION_INTERPRET", None)
    # No autotuning on the CPU: a configless kernel runs with Helion's default config.
    os.environ["HELION_AUTOTUNE_EFFORT"] = "none"
    _cpu_sm_count()


def _cpu_sm_count() -> None:
    try:
        import helion.runtime
    except ImportError:
        return
    original = helion.runtime.get_num_sm
    if getattr(original, "_tiletrans_cpu", False):
        return

    def get_num_sm(device, **kwargs):  # type: ignore[no-untyped-def]
        if getattr(device, "type", device) == "cpu":
            return CPU_SMS
        return original(device, **kwargs)

    get_num_sm._tiletrans_cpu = True  # type: ignore[attr-defined]
    helion.runtime.get_num_sm = get_num_sm


def _pin(obj: object) -> bool:
    from helion.runtime.kernel import Kernel

    configs = getattr(obj, "configs", None)
    if isinstance(obj, Kernel) and isinstance(configs, list) and len(configs) > 1:
        obj.configs = configs[:1]
        return True
    return False


def _explain(module: ir.Module, device: str) -> list[str]:
    """Kernels written without a config: on the CPU they run at Helion's default config (no
    autotuning there); on a GPU Helion autotunes them."""
    configless = [k.name for k in module.kernels if not k.configs]
    if not configless:
        return []
    how = (
        "Helion's default config (HELION_AUTOTUNE_EFFORT=none)"
        if device == "cpu"
        else "the config Helion's autotuner picks"
    )
    names = ", ".join(f"`{n}`" for n in configless)
    return [f"kernels without a config ({names}) run at {how}"]


RUNNER = Runner(prepare=_prepare, pin=_pin, explain=_explain)
