"""airtcp.plot on hand-written CSVs: no simulator involved."""

import math

import pytest

from airtcp import plot


def write(path, header, rows):
    path.write_text(",".join(header) + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))


def test_unwrap_seq_across_32_bit_wrap():
    seqs = [2**32 - 2000, 2**32 - 1000, 0, 1000, 500]
    assert plot.unwrap_seq(seqs) == [0, 1000, 2000, 3000, 2500]


def test_throughput_of_constant_rate_counter():
    # 1250 bytes every 10 ms = 1 Mb/s.
    t = [k * 0.01 for k in range(101)]
    delivered = [k * 1250 for k in range(101)]
    centres, rates = plot.throughput(t, delivered, bins=10)
    assert len(centres) == 10
    assert centres[0] == pytest.approx(0.05)
    assert all(r == pytest.approx(1e6) for r in rates)


def test_throughput_needs_two_samples():
    assert plot.throughput([0.0], [0.0]) == ([], [])


def test_read_csv_types(tmp_path):
    p = tmp_path / "f.csv"
    write(p, ["t_s", "ca_state", "retransmission"], [[0.5, "Open", "false"], [1.0, "Loss", "true"]])
    cols = plot.read_csv(str(p))
    assert cols["t_s"] == [0.5, 1.0]
    assert cols["ca_state"] == ["Open", "Loss"]
    assert cols["retransmission"] == [0.0, 1.0]


def test_read_csv_ragged_row_names_line(tmp_path):
    p = tmp_path / "f.csv"
    p.write_text("a,b\n1,2\n3\n")
    with pytest.raises(plot.PlotError, match=r"f.csv:3: 1 fields, header has 2"):
        plot.read_csv(str(p))


def test_plot_dir_with_infinite_ssthresh(tmp_path):
    header = ["t_s", "cwnd", "ssthresh", "srtt_s", "rto_s", "snd_una", "snd_nxt", "bytes_delivered", "ca_state"]
    rows = []
    for k in range(200):
        ssth = plot.INFINITE_SSTHRESH if k < 50 else 20
        rows.append([k * 0.01, 1 + k % 40, ssth, 0.05, 1.0, k * 1000, k * 1000 + 5000, k * 1000, "Open"])
    write(tmp_path / "flow0.csv", header, rows)
    write(
        tmp_path / "flow0_segments.csv",
        ["t_s", "seq", "len", "retransmission"],
        [[k * 0.01, 1 + k * 1000, 1000, "true" if k % 17 == 0 else "false"] for k in range(200)],
    )
    written = plot.plot_dir(str(tmp_path))
    assert [p.rsplit("/", 1)[1] for p in written] == ["flow0_cwnd.png", "flow0_seq.png", "flow0_throughput.png"]
    for p in written:
        assert (tmp_path / "plots" / p.rsplit("/", 1)[1]).stat().st_size > 1000


def test_plot_dir_missing_column(tmp_path):
    write(tmp_path / "flow0.csv", ["t_s", "cwnd"], [[0, 1]])
    with pytest.raises(plot.PlotError, match="missing column"):
        plot.plot_dir(str(tmp_path))


def test_nan_text():
    assert math.isnan(plot._num(""))
