"""The journal on its own: redaction, JSON lines, case filter, reset, the file sink, and concurrent recording."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from callproof.mock_server import Journal, JournalEnd, JournalRequest, JournalWrite
from callproof.mock_server._journal import case_tag

HEADERS = [("Authorization", "Bearer sk-1"), ("X-Api-Key", "k"), ("api-key", "a"), ("Cookie", "c=1"),
           ("Proxy-Authorization", "Basic x"), ("Accept", "text/event-stream"), ("X-Tag", "a"), ("x-tag", "b")]


def record(journal: Journal, case: str | None = None, body: object = None) -> int:
    return journal.record_request(time=1.0, method="POST", path="/v1/responses", headers=HEADERS, body=body,
                                  status=200, dialect="responses", stream=True, scenario="one_call", case=case).id


def test_secrets_are_redacted_and_repeated_headers_joined() -> None:
    journal = Journal()
    record(journal)
    (request,) = journal.requests()
    assert {k: v for k, v in request.headers.items() if v == "[redacted]"}.keys() == {
        "authorization", "x-api-key", "api-key", "cookie", "proxy-authorization"}
    assert request.headers["accept"] == "text/event-stream" and request.headers["x-tag"] == "a, b"


def test_case_tags_are_read_from_markers() -> None:
    assert case_tag('{"text": "hi [callproof:case=0b6f1c9e-3d2a-4e8f] there"}') == "0b6f1c9e-3d2a-4e8f"
    assert case_tag("no marker") is None


def test_json_lines_carry_writes_as_text_or_base64() -> None:
    journal = Journal()
    rid = record(journal, body={"input": "é"})
    journal.record_write(rid, "é".encode()[:1], 1.5)
    journal.record_write(rid, b"data: {}\n\n", 1.6)
    journal.record_end(rid, "completed", 1.7)
    lines = [json.loads(line) for line in journal.to_jsonl().splitlines()]
    assert [line["kind"] for line in lines] == ["request", "write", "write", "end"]
    assert lines[0]["body"] == {"input": "é"} and lines[0]["headers"]["authorization"] == "[redacted]"
    assert lines[1] == {"kind": "write", "request": rid, "time": 1.5, "size": 1, "base64": "ww=="}
    assert lines[2]["text"] == "data: {}\n\n" and lines[3]["outcome"] == "completed"
    assert journal.body_of(rid) == b"\xc3data: {}\n\n"


def test_case_filter_and_reset() -> None:
    journal = Journal()
    first, second = record(journal, case="a"), record(journal, case="b")
    journal.record_write(first, b"x", 2.0)
    journal.record_write(second, b"y", 2.0)
    only = [json.loads(line) for line in journal.to_jsonl(case="b").splitlines()]
    assert [(line["kind"], line.get("id", line.get("request"))) for line in only] == [("request", second),
                                                                                      ("write", second)]
    assert [r.id for r in journal.requests(case="a")] == [first] and len(journal) == 2
    journal.reset()
    assert journal.records() == [] and journal.to_jsonl() == ""
    assert record(journal) == second + 1  # ids stay unique across resets


def test_the_file_sink_appends_every_record_as_it_happens(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    journal = Journal(path)
    rid = record(journal)
    assert json.loads(path.read_text())["id"] == rid
    journal.record_write(rid, b"z", 3.0)
    journal.reset()
    journal.record_end(rid, "aborted", 4.0)
    journal.close()
    assert [json.loads(line)["kind"] for line in path.read_text().splitlines()] == ["request", "write", "end"]


def test_concurrent_recording_loses_nothing() -> None:
    journal = Journal()

    def worker() -> None:
        for _ in range(200):
            rid = record(journal)
            journal.record_write(rid, b"a", 0.0)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(t.is_alive() for t in threads)
    requests = journal.requests()
    assert len(requests) == 1600 and len({r.id for r in requests}) == 1600 and len(journal.writes()) == 1600


def test_memory_is_bounded_by_max_records_but_the_file_keeps_everything(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.jsonl", max_records=10)
    for i in range(35):
        journal.record_write(1, b"x%d" % i, float(i))
    kept = journal.writes()
    assert [w.data for w in kept] == [b"x%d" % i for i in range(25, 35)]
    assert journal.dropped >= 15
    journal.close()
    assert len((tmp_path / "journal.jsonl").read_text(encoding="utf-8").splitlines()) == 35


def test_reads_of_one_request_or_case_agree_with_the_whole_journal_across_chunks_drops_and_resets() -> None:
    """The reads by request and by case start at the chunk that can hold their records (a run's harness reads the
    current case at the end of a long journal): on a journal whose chunks are 7 records and which keeps 20, with
    writes of earlier requests landing in later chunks, a case whose first request was dropped, and a reset, they
    give what filtering every kept record gives."""
    journal = Journal(max_records=7 * 3)  # chunks of 7 records (the bound caps the chunk size)
    ids: dict[int, str] = {}

    def check() -> None:
        everything = journal.records()
        for rid in ids:
            writes = [r for r in everything if isinstance(r, JournalWrite) and r.request == rid]
            assert journal.writes(rid) == writes, rid
            ends = [r for r in everything if isinstance(r, JournalEnd) and r.request == rid]
            assert journal.end(rid) == (ends[-1] if ends else None), rid
        for case in {*ids.values(), "never"}:
            assert journal.requests(case=case) == [r for r in everything
                                                   if isinstance(r, JournalRequest) and r.case == case]

    for _ in range(2):
        for i in range(30):
            case = f"case{i // 4}"  # a case of several requests, spread over chunks
            rid = record(journal, case=case)
            ids[rid] = case
            earlier = [r for r in ids if r < rid][-3:]
            for other in earlier:  # writes of earlier requests, in a later chunk than theirs
                journal.record_write(other, b"w%d" % i, float(i))
            if i % 5 == 0:
                journal.record_end(rid, "completed", float(i))
            check()
        assert journal.dropped > 0
        journal.reset()
        ids.clear()
        check()
