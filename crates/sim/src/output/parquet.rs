//! Parquet time series written straight from the columns (format spec:
//! apache/parquet-format `parquet.thrift` and its Encodings.md). One row
//! group, one v1 data page per column, PLAIN encoding, no compression, no
//! statistics, REQUIRED columns (so no definition/repetition levels) and a
//! fixed `created_by`: the same data always gives the same bytes, and
//! writing a column is a copy of its values. A general Parquet library
//! spent more time converting and buffering than the whole CSV took.
//!
//! Layout: `PAR1`, per column a PageHeader then the values, the
//! FileMetaData, its length (u32 LE), `PAR1`. Headers and footer use the
//! Thrift compact protocol ([`Thrift`]).

use std::io::{self, Write};

use crate::{ca_state_name, FlowSeries, SegmentLog};

const MAGIC: &[u8; 4] = b"PAR1";
const CREATED_BY: &str = concat!("airtcp ", env!("CARGO_PKG_VERSION"));
/// Values are copied into a buffer of this size before each write.
const CHUNK: usize = 64 * 1024;

// parquet.thrift enum values.
const TYPE_BOOLEAN: i32 = 0;
const TYPE_INT64: i32 = 2;
const TYPE_DOUBLE: i32 = 5;
const TYPE_BYTE_ARRAY: i32 = 6;
const REPETITION_REQUIRED: i32 = 0;
const CONVERTED_UTF8: i32 = 0;
const ENCODING_PLAIN: i32 = 0;
const ENCODING_RLE: i32 = 3;
const CODEC_UNCOMPRESSED: i32 = 0;
const PAGE_DATA: i32 = 0;

/// One column's values as the simulator keeps them.
enum Values<'a> {
    F64(&'a [f64]),
    /// Stored as INT64 (the schema readers saw since the first version).
    U32(&'a [u32]),
    U64(&'a [u64]),
    Bool(&'a [bool]),
    /// `ca_state` codes, stored as their names (UTF8 BYTE_ARRAY).
    CaState(&'a [u8]),
}

impl Values<'_> {
    fn len(&self) -> usize {
        match self {
            Values::F64(v) => v.len(),
            Values::U32(v) => v.len(),
            Values::U64(v) => v.len(),
            Values::Bool(v) => v.len(),
            Values::CaState(v) => v.len(),
        }
    }

    fn physical_type(&self) -> i32 {
        match self {
            Values::F64(_) => TYPE_DOUBLE,
            Values::U32(_) | Values::U64(_) => TYPE_INT64,
            Values::Bool(_) => TYPE_BOOLEAN,
            Values::CaState(_) => TYPE_BYTE_ARRAY,
        }
    }

    /// Size of the PLAIN-encoded values.
    fn plain_len(&self) -> usize {
        match self {
            Values::F64(v) => v.len() * 8,
            Values::U32(v) => v.len() * 8,
            Values::U64(v) => v.len() * 8,
            Values::Bool(v) => v.len().div_ceil(8),
            Values::CaState(v) => v.iter().map(|&c| 4 + ca_state_name(c).len()).sum(),
        }
    }

    /// PLAIN encoding: little-endian 8-byte numbers, booleans bit-packed
    /// LSB first, byte arrays as a u32 LE length and the bytes.
    fn write_plain(&self, w: &mut Counted<impl Write>) -> io::Result<()> {
        match self {
            Values::F64(v) => w.each(*v, |b, &x| b.extend_from_slice(&x.to_le_bytes())),
            Values::U32(v) => w.each(*v, |b, &x| b.extend_from_slice(&(x as i64).to_le_bytes())),
            Values::U64(v) => w.each(*v, |b, &x| b.extend_from_slice(&(x as i64).to_le_bytes())),
            Values::Bool(v) => w.each(v.chunks(8), |b, bits| {
                b.push(bits.iter().enumerate().fold(0u8, |acc, (i, &on)| acc | (on as u8) << i))
            }),
            Values::CaState(v) => w.each(*v, |b, &c| {
                let name = ca_state_name(c).as_bytes();
                b.extend_from_slice(&(name.len() as u32).to_le_bytes());
                b.extend_from_slice(name);
            }),
        }
    }
}

struct Column<'a> {
    name: &'static str,
    values: Values<'a>,
}

/// A writer that counts the bytes written (column offsets go into the
/// footer) and batches small pieces into [`CHUNK`]-sized writes.
struct Counted<W> {
    inner: W,
    buf: Vec<u8>,
    pos: u64,
}

impl<W: Write> Counted<W> {
    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.buf.extend_from_slice(bytes);
        self.pos += bytes.len() as u64;
        self.flush_if_full()
    }

    /// Encode every item with `enc` into the buffer.
    fn each<T>(&mut self, items: impl IntoIterator<Item = T>, enc: impl Fn(&mut Vec<u8>, T)) -> io::Result<()> {
        // Items encode to at most 12 bytes (a u32 length + "Recovery"), so
        // checking every CHUNK / 32 items keeps the buffer near CHUNK.
        let mut since_check = 0;
        let mut before = self.buf.len();
        for x in items {
            enc(&mut self.buf, x);
            since_check += 1;
            if since_check == CHUNK / 32 {
                since_check = 0;
                self.pos += (self.buf.len() - before) as u64;
                self.flush_if_full()?;
                before = self.buf.len();
            }
        }
        self.pos += (self.buf.len() - before) as u64;
        self.flush_if_full()
    }

    fn flush_if_full(&mut self) -> io::Result<()> {
        if self.buf.len() >= CHUNK / 2 {
            self.inner.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    fn finish(mut self) -> io::Result<()> {
        self.inner.write_all(&self.buf)
    }
}

/// Thrift compact protocol encoder, just the parts parquet.thrift needs.
struct Thrift {
    out: Vec<u8>,
    /// Last field id of the struct being written, and of the enclosing ones.
    last: i16,
    stack: Vec<i16>,
}

const CT_I16: u8 = 4;
const CT_I32: u8 = 5;
const CT_I64: u8 = 6;
const CT_BINARY: u8 = 8;
const CT_LIST: u8 = 9;
const CT_STRUCT: u8 = 12;

impl Thrift {
    fn new() -> Thrift {
        Thrift { out: Vec::with_capacity(256), last: 0, stack: Vec::new() }
    }

    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.out.push(v as u8 | 0x80);
            v >>= 7;
        }
        self.out.push(v as u8);
    }

    fn zigzag(&mut self, v: i64) {
        self.varint(((v << 1) ^ (v >> 63)) as u64);
    }

    fn field(&mut self, id: i16, ty: u8) {
        let delta = id - self.last;
        if (1..=15).contains(&delta) {
            self.out.push((delta as u8) << 4 | ty);
        } else {
            self.out.push(ty);
            self.zigzag(id as i64);
        }
        self.last = id;
    }

    fn i16(&mut self, id: i16, v: i16) {
        self.field(id, CT_I16);
        self.zigzag(v as i64);
    }

    fn i32(&mut self, id: i16, v: i32) {
        self.field(id, CT_I32);
        self.zigzag(v as i64);
    }

    fn i64(&mut self, id: i16, v: i64) {
        self.field(id, CT_I64);
        self.zigzag(v);
    }

    fn binary(&mut self, id: i16, v: &[u8]) {
        self.field(id, CT_BINARY);
        self.varint(v.len() as u64);
        self.out.extend_from_slice(v);
    }

    fn list(&mut self, id: i16, elem: u8, n: usize) {
        self.field(id, CT_LIST);
        if n < 15 {
            self.out.push((n as u8) << 4 | elem);
        } else {
            self.out.push(0xf0 | elem);
            self.varint(n as u64);
        }
    }

    /// Start a struct that is a list element (no field header).
    fn begin(&mut self) {
        self.stack.push(self.last);
        self.last = 0;
    }

    fn begin_field(&mut self, id: i16) {
        self.field(id, CT_STRUCT);
        self.begin();
    }

    fn end(&mut self) {
        self.out.push(0);
        self.last = self.stack.pop().unwrap_or(0);
    }
}

/// Where a column chunk landed, for the footer.
struct Chunk {
    offset: u64,
    size: u64,
}

fn page_header(n: usize, data_len: usize) -> Vec<u8> {
    let mut t = Thrift::new();
    t.i32(1, PAGE_DATA);
    t.i32(2, data_len as i32);
    t.i32(3, data_len as i32);
    t.begin_field(5); // DataPageHeader
    t.i32(1, n as i32);
    t.i32(2, ENCODING_PLAIN);
    t.i32(3, ENCODING_RLE);
    t.i32(4, ENCODING_RLE);
    t.end();
    t.end();
    t.out
}

fn footer(schema_name: &str, cols: &[Column<'_>], chunks: &[Chunk], rows: usize) -> Vec<u8> {
    let mut t = Thrift::new();
    t.i32(1, 1); // version
    t.list(2, CT_STRUCT, cols.len() + 1);
    t.begin(); // root SchemaElement
    t.binary(4, schema_name.as_bytes());
    t.i32(5, cols.len() as i32);
    t.end();
    for c in cols {
        t.begin();
        t.i32(1, c.values.physical_type());
        t.i32(3, REPETITION_REQUIRED);
        t.binary(4, c.name.as_bytes());
        if let Values::CaState(_) = c.values {
            t.i32(6, CONVERTED_UTF8);
            t.begin_field(10); // LogicalType union: STRING
            t.begin_field(1);
            t.end();
            t.end();
        }
        t.end();
    }
    t.i64(3, rows as i64);
    t.list(4, CT_STRUCT, 1);
    t.begin(); // RowGroup
    t.list(1, CT_STRUCT, cols.len());
    for (c, ch) in cols.iter().zip(chunks) {
        t.begin(); // ColumnChunk
        t.i64(2, 0); // file_offset: deprecated, 0 when no metadata outside the footer
        t.begin_field(3); // ColumnMetaData
        t.i32(1, c.values.physical_type());
        t.list(2, CT_I32, 1);
        t.zigzag(ENCODING_PLAIN as i64);
        t.list(3, CT_BINARY, 1);
        t.varint(c.name.len() as u64);
        t.out.extend_from_slice(c.name.as_bytes());
        t.i32(4, CODEC_UNCOMPRESSED);
        t.i64(5, rows as i64);
        t.i64(6, ch.size as i64);
        t.i64(7, ch.size as i64);
        t.i64(9, ch.offset as i64);
        t.end();
        t.end();
    }
    let total: u64 = chunks.iter().map(|c| c.size).sum();
    t.i64(2, total as i64);
    t.i64(3, rows as i64);
    t.i64(5, chunks.first().map_or(MAGIC.len() as u64, |c| c.offset) as i64);
    t.i64(6, total as i64);
    t.i16(7, 0);
    t.end();
    t.binary(6, CREATED_BY.as_bytes());
    t.end();
    t.out
}

fn write<W: Write>(w: W, schema_name: &str, cols: &[Column<'_>]) -> io::Result<()> {
    let rows = cols.first().map_or(0, |c| c.values.len());
    if cols.iter().any(|c| c.values.len() != rows) {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "parquet: columns of different lengths"));
    }
    let mut w = Counted { inner: w, buf: Vec::with_capacity(CHUNK), pos: 0 };
    w.put(MAGIC)?;
    let mut chunks = Vec::with_capacity(cols.len());
    for c in cols {
        let offset = w.pos;
        w.put(&page_header(rows, c.values.plain_len()))?;
        c.values.write_plain(&mut w)?;
        chunks.push(Chunk { offset, size: w.pos - offset });
    }
    let meta = footer(schema_name, cols, &chunks, rows);
    w.put(&meta)?;
    w.put(&(meta.len() as u32).to_le_bytes())?;
    w.put(MAGIC)?;
    w.finish()
}

pub fn series<W: Write>(s: &FlowSeries, w: W) -> io::Result<()> {
    let cols = [
        Column { name: "t_s", values: Values::F64(&s.t_s) },
        Column { name: "cwnd", values: Values::U32(&s.cwnd) },
        Column { name: "ssthresh", values: Values::U32(&s.ssthresh) },
        Column { name: "srtt_s", values: Values::F64(&s.srtt_s) },
        Column { name: "rto_s", values: Values::F64(&s.rto_s) },
        Column { name: "snd_una", values: Values::U64(&s.snd_una) },
        Column { name: "snd_nxt", values: Values::U64(&s.snd_nxt) },
        Column { name: "bytes_delivered", values: Values::U64(&s.bytes_delivered) },
        Column { name: "ca_state", values: Values::CaState(&s.ca_state) },
    ];
    write(w, "flow_series", &cols)
}

pub fn segments<W: Write>(s: &SegmentLog, w: W) -> io::Result<()> {
    let cols = [
        Column { name: "t_s", values: Values::F64(&s.t_s) },
        Column { name: "seq", values: Values::U64(&s.seq) },
        Column { name: "len", values: Values::U32(&s.len) },
        Column { name: "retransmission", values: Values::Bool(&s.retransmission) },
    ];
    write(w, "flow_segments", &cols)
}

#[cfg(test)]
mod tests {
    //! Read the files back with the `parquet` crate's reader, an
    //! independent implementation of the format.
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;

    fn read_back(bytes: Vec<u8>, name: &str) -> (String, Vec<Vec<(String, Field)>>) {
        let path = std::env::temp_dir().join(format!("airtcp-pq-{}-{name}.parquet", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
        let meta = reader.metadata();
        assert_eq!(meta.num_row_groups(), 1);
        let schema = format!("{:?}", meta.file_metadata().schema_descr().columns().iter().map(|c| (c.name().to_string(), c.physical_type())).collect::<Vec<_>>());
        let rows = reader
            .get_row_iter(None)
            .unwrap()
            .map(|r| r.unwrap().get_column_iter().map(|(n, f)| (n.clone(), f.clone())).collect())
            .collect();
        std::fs::remove_file(&path).unwrap();
        (schema, rows)
    }

    #[test]
    fn series_reads_back_with_names_and_types() {
        let s = FlowSeries {
            t_s: vec![0.0, 0.01, 600.0],
            cwnd: vec![1, 2, u32::MAX],
            ssthresh: vec![0x7fff_ffff, 2, 3],
            srtt_s: vec![0.0, 0.0486, 1.5],
            rto_s: vec![1.0, 1.0, 60.0],
            snd_una: vec![0, 1000, 1 << 40],
            snd_nxt: vec![1, 2000, (1 << 40) + 5],
            bytes_delivered: vec![0, 999, 123_456_789],
            ca_state: vec![0, 3, 4],
        };
        let mut bytes = Vec::new();
        series(&s, &mut bytes).unwrap();
        assert_eq!(&bytes[..4], b"PAR1");
        assert_eq!(&bytes[bytes.len() - 4..], b"PAR1");
        let (schema, rows) = read_back(bytes, "series");
        assert_eq!(
            schema,
            "[(\"t_s\", DOUBLE), (\"cwnd\", INT64), (\"ssthresh\", INT64), (\"srtt_s\", DOUBLE), (\"rto_s\", DOUBLE), \
             (\"snd_una\", INT64), (\"snd_nxt\", INT64), (\"bytes_delivered\", INT64), (\"ca_state\", BYTE_ARRAY)]"
        );
        assert_eq!(rows.len(), 3);
        let last: Vec<String> = rows[2].iter().map(|(_, f)| f.to_string()).collect();
        assert_eq!(last, ["600.0", "4294967295", "3", "1.5", "60.0", "1099511627776", "1099511627781", "123456789", "\"Loss\""]);
        assert_eq!(rows[1][8].1, Field::Str("Recovery".into()));
        assert_eq!(rows[1][3].1, Field::Double(0.0486));
    }

    #[test]
    fn segments_bits_pack_across_bytes() {
        let n = 21;
        let log = SegmentLog {
            t_s: (0..n).map(|i| crate::secs(i * 4_216_000)).collect(),
            seq: (0..n).map(|i| i * 1000).collect(),
            len: vec![1000; n as usize],
            retransmission: (0..n).map(|i| i % 3 == 1 || i == 20).collect(),
        };
        let mut bytes = Vec::new();
        segments(&log, &mut bytes).unwrap();
        let (_, rows) = read_back(bytes, "segments");
        let retx: Vec<bool> = rows.iter().map(|r| r[3].1 == Field::Bool(true)).collect();
        assert_eq!(retx, log.retransmission);
        assert_eq!(rows[20][0].1, Field::Double(crate::secs(20 * 4_216_000)));
        assert_eq!(rows[20][1].1, Field::Long(20_000));
    }

    #[test]
    fn empty_series_is_a_valid_file() {
        let mut bytes = Vec::new();
        series(&FlowSeries::default(), &mut bytes).unwrap();
        let (_, rows) = read_back(bytes, "empty");
        assert!(rows.is_empty());
    }

    #[test]
    fn same_columns_same_bytes() {
        let s = FlowSeries { t_s: vec![0.5], cwnd: vec![1], ssthresh: vec![2], srtt_s: vec![0.1], rto_s: vec![1.0], snd_una: vec![0], snd_nxt: vec![1], bytes_delivered: vec![0], ca_state: vec![1] };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        series(&s, &mut a).unwrap();
        series(&s.clone(), &mut b).unwrap();
        assert_eq!(a, b);
    }
}
