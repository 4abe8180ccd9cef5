//! Parquet time series through the `parquet` crate's low-level column
//! writer: one row group, PLAIN encoding, no dictionary, no compression, no
//! statistics and a fixed `created_by`, so the same data always gives the
//! same bytes. Columns are fed in fixed-size batches through one reused
//! buffer, so writing allocates nothing per row.

use std::io::{self, Write};
use std::sync::Arc;

use parquet::basic::{Compression, Encoding};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DataType, DoubleType, Int64Type};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::file::writer::{SerializedColumnWriter, SerializedFileWriter};
use parquet::schema::parser::parse_message_type;

use crate::{ca_state_name, FlowSeries, SegmentLog};

/// Rows per `write_batch` call.
const BATCH: usize = 8192;

fn err(e: parquet::errors::ParquetError) -> io::Error {
    io::Error::other(format!("parquet: {e}"))
}

/// One column's data, converted to the physical type batch by batch.
enum Column<'a> {
    F64(&'a [f64]),
    U32(&'a [u32]),
    U64(&'a [u64]),
    Bool(&'a [bool]),
    CaState(&'a [u8]),
}

impl Column<'_> {
    fn write(&self, cw: &mut SerializedColumnWriter<'_>) -> parquet::errors::Result<()> {
        match *self {
            Column::F64(v) => batches::<DoubleType, _>(cw, v, |&x| x),
            Column::U32(v) => batches::<Int64Type, _>(cw, v, |&x| i64::from(x)),
            Column::U64(v) => batches::<Int64Type, _>(cw, v, |&x| x as i64),
            Column::Bool(v) => batches::<BoolType, _>(cw, v, |&x| x),
            Column::CaState(v) => batches::<ByteArrayType, _>(cw, v, |&c| ByteArray::from(ca_state_name(c))),
        }
    }
}

fn batches<T: DataType, S>(
    cw: &mut SerializedColumnWriter<'_>,
    src: &[S],
    conv: impl Fn(&S) -> T::T,
) -> parquet::errors::Result<()> {
    let w = cw.typed::<T>();
    let mut buf: Vec<T::T> = Vec::with_capacity(BATCH.min(src.len()));
    for chunk in src.chunks(BATCH) {
        buf.clear();
        buf.extend(chunk.iter().map(&conv));
        w.write_batch(&buf, None, None)?;
    }
    Ok(())
}

fn write<W: Write + Send>(w: W, schema: &str, cols: &[Column<'_>]) -> io::Result<()> {
    let schema = Arc::new(parse_message_type(schema).map_err(err)?);
    let props = Arc::new(
        WriterProperties::builder()
            .set_writer_version(WriterVersion::PARQUET_1_0)
            .set_created_by(concat!("airtcp ", env!("CARGO_PKG_VERSION")).to_string())
            .set_compression(Compression::UNCOMPRESSED)
            .set_dictionary_enabled(false)
            .set_encoding(Encoding::PLAIN)
            .set_statistics_enabled(EnabledStatistics::None)
            .build(),
    );
    let mut fw = SerializedFileWriter::new(w, schema, props).map_err(err)?;
    let mut rg = fw.next_row_group().map_err(err)?;
    let mut cols = cols.iter();
    while let Some(mut cw) = rg.next_column().map_err(err)? {
        let col = cols.next().ok_or_else(|| io::Error::other("parquet: schema has more columns than data"))?;
        col.write(&mut cw).map_err(err)?;
        cw.close().map_err(err)?;
    }
    rg.close().map_err(err)?;
    fw.close().map_err(err)?;
    Ok(())
}

pub fn series<W: Write + Send>(s: &FlowSeries, w: W) -> io::Result<()> {
    let schema = "message flow_series {
        REQUIRED DOUBLE t_s;
        REQUIRED INT64 cwnd;
        REQUIRED INT64 ssthresh;
        REQUIRED DOUBLE srtt_s;
        REQUIRED DOUBLE rto_s;
        REQUIRED INT64 snd_una;
        REQUIRED INT64 snd_nxt;
        REQUIRED INT64 bytes_delivered;
        REQUIRED BYTE_ARRAY ca_state (UTF8);
    }";
    write(
        w,
        schema,
        &[
            Column::F64(&s.t_s),
            Column::U32(&s.cwnd),
            Column::U32(&s.ssthresh),
            Column::F64(&s.srtt_s),
            Column::F64(&s.rto_s),
            Column::U64(&s.snd_una),
            Column::U64(&s.snd_nxt),
            Column::U64(&s.bytes_delivered),
            Column::CaState(&s.ca_state),
        ],
    )
}

/// A UDP flow's receiver series (`crate::udp::UdpSeries`).
pub fn udp_series<W: Write + Send>(s: &crate::UdpSeries, w: W) -> io::Result<()> {
    let schema = "message udp_series {
        REQUIRED DOUBLE t_s;
        REQUIRED INT64 sent;
        REQUIRED INT64 received;
        REQUIRED INT64 bytes_received;
        REQUIRED INT64 lost;
        REQUIRED DOUBLE jitter_s;
        REQUIRED DOUBLE delay_s;
    }";
    write(
        w,
        schema,
        &[
            Column::F64(&s.t_s),
            Column::U64(&s.sent),
            Column::U64(&s.received),
            Column::U64(&s.bytes_received),
            Column::U64(&s.lost),
            Column::F64(&s.jitter_s),
            Column::F64(&s.delay_s),
        ],
    )
}

pub fn segments<W: Write + Send>(s: &SegmentLog, w: W) -> io::Result<()> {
    let schema = "message flow_segments {
        REQUIRED DOUBLE t_s;
        REQUIRED INT64 seq;
        REQUIRED INT64 len;
        REQUIRED BOOLEAN retransmission;
    }";
    write(w, schema, &[Column::F64(&s.t_s), Column::U64(&s.seq), Column::U32(&s.len), Column::Bool(&s.retransmission)])
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
