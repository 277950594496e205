"""Repair of a damaged embedded store: explicit, with a copy of the files first, and an exact account of the loss.

``synapse-graph repair --db PATH`` calls :func:`repair_store`. What it can repair:

* a missing (or malformed) AOF manifest: rebuilt from the data files, when they tell one
  order for sure (one base file, consecutive incr files); nothing is lost;
* a last incr file that ends in a command cut short (a crash mid-write): cut back to its last
  complete command, as Redis's ``redis-check-aof --fix`` would;
* a last incr file shorter than the store's ledger recorded (cut at a command boundary, or
  emptied): the loss is accepted, and recorded, so the store opens again.

The report says exactly what is lost: bytes, and complete commands (writes) counted from the
file and from the ledger (``aof_ledger.py``), which knows how many commands the missing bytes held.

It refuses, changing nothing, what cannot be repaired without losing writes that are still
there, or inventing data: damage in the middle of a file (readable commands follow it), a file
changed within what the ledger recorded, a damaged base file, a damaged or short incr file that
is not the last, files missing from the manifest.
Before changing anything it copies the AOF directory next to it (``x.db.aof.backup-TIME``);
afterwards it starts the server on the store to prove that it opens, and puts the files
back as they were if it does not.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synapse_graph.backends import aof_ledger, embedded
from synapse_graph.backends.aof import (
    MANIFEST,
    AofFile,
    FileCheck,
    check_file,
    count_commands,
    manifest_text,
    read_manifest,
    rebuilt_manifest,
    shown,
)
from synapse_graph.backends.aof_ledger import commands_after, is_torn
from synapse_graph.backends.embedded import EmbeddedServer
from synapse_graph.errors import BackendError, NotFoundError, StoreDamagedError


@dataclass(frozen=True)
class RepairReport:
    """What :func:`repair_store` found, did, and could not recover."""

    store: str
    damaged: bool
    actions: tuple[str, ...] = ()
    lost: tuple[str, ...] = ()
    dropped_bytes: int = 0  # bytes of the append-only files that were cut off
    dropped_commands: int = 0  # complete write commands among them
    partial_command: bool = False  # whether they end with a partial (never acknowledged) command
    backup: str | None = None  # the copy of the files made before any change

    def summary(self) -> str:
        if not self.damaged:
            return f"{self.store}: no damage found; nothing was changed"
        lines = [f"repaired {self.store}:", *(f"  - {action}" for action in self.actions)]
        lines.append("lost:" if self.lost else "nothing was lost")
        lines += [f"  - {what}" for what in self.lost]
        lines.append(f"the files as they were before the repair: {self.backup}")
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class _Cut:
    """The last incr file kept up to ``keep`` bytes: ``size`` bytes were there (or recorded), holding ``lost``
    complete commands after ``keep`` and ``partial`` bytes of an incomplete one."""

    path: Path
    size: int
    keep: int
    lost: int
    partial: int
    short: bool  # the file was already shorter than recorded: nothing to cut, the loss is accepted


@dataclass
class _Plan:
    files: list[AofFile]
    rebuild: str | None = None  # why the manifest is rebuilt
    cut: _Cut | None = None


def repair_store(location: str | os.PathLike[str]) -> RepairReport:
    """Repair the embedded store at ``location`` (a file path) if it is damaged; see the module docstring.

    Raises:
        NotFoundError: there is no store there.
        StoreDamagedError: the damage cannot be repaired (nothing was changed).
        BackendUnavailableError: a server is running for the store (close its users first).
    """
    server = EmbeddedServer(location)
    where = shown(server.db_file)
    if not server.has_data():
        raise NotFoundError(f"there is no store at {where}: nothing to repair")
    with server.exclusive():
        plan = _diagnose(server)
        if plan.rebuild is None and plan.cut is None:
            backup = None
        else:
            backup = _backup(server.aof_dir)
            _apply(server.aof_dir, plan)
    _prove_it_opens(server, backup)
    if backup is None:
        return RepairReport(where, damaged=False)
    return _report(where, plan, backup)


def _diagnose(server: EmbeddedServer) -> _Plan:
    aof_dir, where = server.aof_dir, shown(server.db_file)
    plan = _Plan(files=[])
    manifest = aof_dir / MANIFEST
    try:
        plan.files = read_manifest(manifest.read_text(encoding="utf-8", errors="replace"))
        if not any(f.kind in "bi" for f in plan.files):
            raise ValueError("it lists no data file")
    except (OSError, ValueError) as exc:
        plan.rebuild = "missing" if isinstance(exc, FileNotFoundError) else f"malformed ({exc})"
        try:
            plan.files = rebuilt_manifest(aof_dir)
        except ValueError as why:
            raise StoreDamagedError(
                f"the store {where} has no usable AOF manifest and its data files cannot be put back in order: "
                f"{why}. Nothing was changed; restore the store from a backup or an export."
            ) from why
    data = [f for f in plan.files if f.kind in "bi"]
    missing = [f.name for f in data if not (aof_dir / f.name).is_file()]
    if missing:
        raise StoreDamagedError(
            f"the store {where} lacks {', '.join(missing)}, which its manifest lists: the writes in "
            f"{'it' if len(missing) == 1 else 'them'} cannot be recovered. Nothing was changed; restore the store "
            "from a backup or an export."
        )
    ledger = aof_ledger.read_ledger(aof_dir)
    binary, _ = embedded.binaries()
    for position, entry in enumerate(data):
        path = aof_dir / entry.name
        mismatch = next(iter(aof_ledger.mismatches(aof_dir, [entry])), None)
        checked = check_file(binary, path)
        if mismatch is None and checked.valid:
            continue
        if position != len(data) - 1 or entry.kind != "i":
            raise _refused(where, mismatch.describe() if mismatch is not None else
                           f"{entry.name} is damaged ({checked.detail}), and only the last incr file can be cut back "
                           "to its sound part")
        plan.cut = _cut(path, checked, ledger.get(entry.name), where, changed=mismatch is not None
                        and mismatch.how == "changed")
    return plan


def _refused(where: str, problem: str) -> StoreDamagedError:
    return StoreDamagedError(
        f"the store {where} is damaged: {problem}. Repair cannot recover it without losing writes that are still "
        "there, or inventing some, so nothing was changed; restore the store from a backup or an export."
    )


def _cut(path: Path, checked: FileCheck, recorded: aof_ledger.Recorded | None, where: str, *,
         changed: bool) -> _Cut:
    """What cutting the last incr file back to its sound part loses; refused unless only its end is missing."""
    data = path.read_bytes()
    keep = len(data) if checked.valid else checked.ok_up_to
    tail = data[keep:]
    if recorded is not None and recorded.commands is not None and keep < recorded.size:
        # The ledger knows how many commands the file held up to its recorded size; after it, count them.
        lost = recorded.commands - count_commands(data[:keep])[0] + count_commands(data[recorded.size:])[0]
    else:
        lost = 1 + commands_after(tail) if tail and not is_torn(tail) else 0
    if changed or not is_torn(tail):
        what = "was changed since it was written" if changed and is_torn(tail) else \
            f"is damaged in the middle, at byte {keep} of {len(data)}"
        raise _refused(where, f"{path.name} {what}: cutting it there would lose {lost} commands (the damaged one "
                              f"and {max(lost - 1, 0)} after it)")
    if lost:  # the file lost bytes the ledger recorded: accept their loss, counted
        size = max(recorded.size if recorded is not None else 0, len(data))
        return _Cut(path, size, keep, lost, 0, short=len(data) < size)
    return _Cut(path, len(data), keep, 0, len(tail), short=False)


def _backup(aof_dir: Path) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%S")
    target = aof_dir.with_name(f"{aof_dir.name}.backup-{stamp}")
    number = 1
    while target.exists():
        number += 1
        target = aof_dir.with_name(f"{aof_dir.name}.backup-{stamp}-{number}")
    shutil.copytree(aof_dir, target)
    return target


def _apply(aof_dir: Path, plan: _Plan) -> None:
    if plan.cut is not None:
        with open(plan.cut.path, "r+b") as handle:
            handle.truncate(plan.cut.keep)
            os.fsync(handle.fileno())
        ledger = aof_ledger.read_ledger(aof_dir)
        ledger.pop(plan.cut.path.name, None)
        recorded = aof_ledger.extend(plan.cut.path, None)  # the file as it is now is what is accepted
        if recorded is not None:
            ledger[plan.cut.path.name] = recorded
        aof_ledger.write_ledger(aof_dir, ledger)
    if plan.rebuild is not None:
        temporary = aof_dir / (MANIFEST + ".repair")
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(manifest_text(plan.files))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, aof_dir / MANIFEST)
    directory = os.open(aof_dir, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def _prove_it_opens(server: EmbeddedServer, backup: Path | None) -> None:
    probe = EmbeddedServer(server.db_file)
    try:
        probe.start(create=False)
    except (StoreDamagedError, BackendError) as exc:
        if backup is not None:
            with server.exclusive():
                shutil.rmtree(server.aof_dir)
                shutil.copytree(backup, server.aof_dir)
            raise StoreDamagedError(
                f"repair could not make {shown(server.db_file)} open; its files were put back as they were "
                f"(a copy stays in {shown(backup)}). The server said: {exc}"
            ) from exc
        raise StoreDamagedError(
            f"{shown(server.db_file)} does not open, yet redis-check-aof finds its files sound, so there is nothing "
            f"repair can cut or rebuild; restore it from a backup or an export. The server said: {exc}"
        ) from exc
    probe.stop(linger=False)  # repair leaves no server behind


def _report(where: str, plan: _Plan, backup: Path) -> RepairReport:
    actions, lost = [], []
    dropped = commands = 0
    partial = False
    if plan.rebuild is not None:
        names = ", ".join(f.name for f in plan.files)
        actions.append(f"rebuilt the {plan.rebuild} manifest {MANIFEST} from the data files, in order: {names}")
    if plan.cut is not None:
        cut = plan.cut
        dropped, commands, partial = cut.size - cut.keep, cut.lost, cut.partial > 0
        name = cut.path.name
        if cut.short:
            actions.append(f"accepted that {name} lost writes: the ledger recorded {cut.size} bytes, it is kept up to "
                           f"its last complete command ({cut.keep} bytes) and recorded so")
        else:
            actions.append(f"cut {name} back from {cut.size} to {cut.keep} bytes, the end of its last sound command")
        lost.append(
            f"the last {dropped} bytes of {name}: {commands} complete command(s)"
            f"{f' and {cut.partial} bytes of an incomplete one' if partial else ''}; the writes they held are lost"
        )
    return RepairReport(where, True, tuple(actions), tuple(lost), dropped, commands, partial, shown(backup))
