// SPDX-License-Identifier: GPL-2.0-only
/*
 * End-to-end protection information (NVM command set 1.0, section 5.2;
 * NVMe 2.0's 64b guard) as the host computes it when it transfers the
 * tuples itself (PRACT clear): per LBA a guard over the LBA's data and
 * the metadata bytes before the tuple, an application tag and a
 * reference tag.  Types 1 and 2 carry the LBA (type 2: the command's
 * initial reference tag, incremented per LBA); type 3's reference tag is
 * opaque.  An application tag of all ones (and for type 3 a reference
 * tag of all ones too) turns the checks of that LBA off.
 *
 * The CRCs are the ones the kernel's block/t10-pi.c uses for the same
 * tuples: crc_t10dif() (16b guard) and crc64_nvme() (64b guard, named
 * crc64_rocksoft() before).
 */
#include <errno.h>

#include "model/model.h"

/* CRC-16/T10-DIF: polynomial 0x8bb7, MSB first, no reflection, no xor */
static const uint16_t crc16_t10dif_table[256] = {
	0x0000, 0x8bb7, 0x9cd9, 0x176e, 0xb205, 0x39b2, 0x2edc, 0xa56b,
	0xefbd, 0x640a, 0x7364, 0xf8d3, 0x5db8, 0xd60f, 0xc161, 0x4ad6,
	0x54cd, 0xdf7a, 0xc814, 0x43a3, 0xe6c8, 0x6d7f, 0x7a11, 0xf1a6,
	0xbb70, 0x30c7, 0x27a9, 0xac1e, 0x0975, 0x82c2, 0x95ac, 0x1e1b,
	0xa99a, 0x222d, 0x3543, 0xbef4, 0x1b9f, 0x9028, 0x8746, 0x0cf1,
	0x4627, 0xcd90, 0xdafe, 0x5149, 0xf422, 0x7f95, 0x68fb, 0xe34c,
	0xfd57, 0x76e0, 0x618e, 0xea39, 0x4f52, 0xc4e5, 0xd38b, 0x583c,
	0x12ea, 0x995d, 0x8e33, 0x0584, 0xa0ef, 0x2b58, 0x3c36, 0xb781,
	0xd883, 0x5334, 0x445a, 0xcfed, 0x6a86, 0xe131, 0xf65f, 0x7de8,
	0x373e, 0xbc89, 0xabe7, 0x2050, 0x853b, 0x0e8c, 0x19e2, 0x9255,
	0x8c4e, 0x07f9, 0x1097, 0x9b20, 0x3e4b, 0xb5fc, 0xa292, 0x2925,
	0x63f3, 0xe844, 0xff2a, 0x749d, 0xd1f6, 0x5a41, 0x4d2f, 0xc698,
	0x7119, 0xfaae, 0xedc0, 0x6677, 0xc31c, 0x48ab, 0x5fc5, 0xd472,
	0x9ea4, 0x1513, 0x027d, 0x89ca, 0x2ca1, 0xa716, 0xb078, 0x3bcf,
	0x25d4, 0xae63, 0xb90d, 0x32ba, 0x97d1, 0x1c66, 0x0b08, 0x80bf,
	0xca69, 0x41de, 0x56b0, 0xdd07, 0x786c, 0xf3db, 0xe4b5, 0x6f02,
	0x3ab1, 0xb106, 0xa668, 0x2ddf, 0x88b4, 0x0303, 0x146d, 0x9fda,
	0xd50c, 0x5ebb, 0x49d5, 0xc262, 0x6709, 0xecbe, 0xfbd0, 0x7067,
	0x6e7c, 0xe5cb, 0xf2a5, 0x7912, 0xdc79, 0x57ce, 0x40a0, 0xcb17,
	0x81c1, 0x0a76, 0x1d18, 0x96af, 0x33c4, 0xb873, 0xaf1d, 0x24aa,
	0x932b, 0x189c, 0x0ff2, 0x8445, 0x212e, 0xaa99, 0xbdf7, 0x3640,
	0x7c96, 0xf721, 0xe04f, 0x6bf8, 0xce93, 0x4524, 0x524a, 0xd9fd,
	0xc7e6, 0x4c51, 0x5b3f, 0xd088, 0x75e3, 0xfe54, 0xe93a, 0x628d,
	0x285b, 0xa3ec, 0xb482, 0x3f35, 0x9a5e, 0x11e9, 0x0687, 0x8d30,
	0xe232, 0x6985, 0x7eeb, 0xf55c, 0x5037, 0xdb80, 0xccee, 0x4759,
	0x0d8f, 0x8638, 0x9156, 0x1ae1, 0xbf8a, 0x343d, 0x2353, 0xa8e4,
	0xb6ff, 0x3d48, 0x2a26, 0xa191, 0x04fa, 0x8f4d, 0x9823, 0x1394,
	0x5942, 0xd2f5, 0xc59b, 0x4e2c, 0xeb47, 0x60f0, 0x779e, 0xfc29,
	0x4ba8, 0xc01f, 0xd771, 0x5cc6, 0xf9ad, 0x721a, 0x6574, 0xeec3,
	0xa415, 0x2fa2, 0x38cc, 0xb37b, 0x1610, 0x9da7, 0x8ac9, 0x017e,
	0x1f65, 0x94d2, 0x83bc, 0x080b, 0xad60, 0x26d7, 0x31b9, 0xba0e,
	0xf0d8, 0x7b6f, 0x6c01, 0xe7b6, 0x42dd, 0xc96a, 0xde04, 0x55b3,
};

/*
 * CRC-64/NVME: polynomial 0xad93d23594c93659, LSB first (the table is
 * of its reflection, 0x9a6c9329ac4bc9b5), init and final xor all ones
 */
static const uint64_t crc64_nvme_table[256] = {
	0x0000000000000000ULL, 0x7f6ef0c830358979ULL,
	0xfedde190606b12f2ULL, 0x81b31158505e9b8bULL,
	0xc962e5739841b68fULL, 0xb60c15bba8743ff6ULL,
	0x37bf04e3f82aa47dULL, 0x48d1f42bc81f2d04ULL,
	0xa61cecb46814fe75ULL, 0xd9721c7c5821770cULL,
	0x58c10d24087fec87ULL, 0x27affdec384a65feULL,
	0x6f7e09c7f05548faULL, 0x1010f90fc060c183ULL,
	0x91a3e857903e5a08ULL, 0xeecd189fa00bd371ULL,
	0x78e0ff3b88be6f81ULL, 0x078e0ff3b88be6f8ULL,
	0x863d1eabe8d57d73ULL, 0xf953ee63d8e0f40aULL,
	0xb1821a4810ffd90eULL, 0xceecea8020ca5077ULL,
	0x4f5ffbd87094cbfcULL, 0x30310b1040a14285ULL,
	0xdefc138fe0aa91f4ULL, 0xa192e347d09f188dULL,
	0x2021f21f80c18306ULL, 0x5f4f02d7b0f40a7fULL,
	0x179ef6fc78eb277bULL, 0x68f0063448deae02ULL,
	0xe943176c18803589ULL, 0x962de7a428b5bcf0ULL,
	0xf1c1fe77117cdf02ULL, 0x8eaf0ebf2149567bULL,
	0x0f1c1fe77117cdf0ULL, 0x7072ef2f41224489ULL,
	0x38a31b04893d698dULL, 0x47cdebccb908e0f4ULL,
	0xc67efa94e9567b7fULL, 0xb9100a5cd963f206ULL,
	0x57dd12c379682177ULL, 0x28b3e20b495da80eULL,
	0xa900f35319033385ULL, 0xd66e039b2936bafcULL,
	0x9ebff7b0e12997f8ULL, 0xe1d10778d11c1e81ULL,
	0x606216208142850aULL, 0x1f0ce6e8b1770c73ULL,
	0x8921014c99c2b083ULL, 0xf64ff184a9f739faULL,
	0x77fce0dcf9a9a271ULL, 0x08921014c99c2b08ULL,
	0x4043e43f0183060cULL, 0x3f2d14f731b68f75ULL,
	0xbe9e05af61e814feULL, 0xc1f0f56751dd9d87ULL,
	0x2f3dedf8f1d64ef6ULL, 0x50531d30c1e3c78fULL,
	0xd1e00c6891bd5c04ULL, 0xae8efca0a188d57dULL,
	0xe65f088b6997f879ULL, 0x9931f84359a27100ULL,
	0x1882e91b09fcea8bULL, 0x67ec19d339c963f2ULL,
	0xd75adabd7a6e2d6fULL, 0xa8342a754a5ba416ULL,
	0x29873b2d1a053f9dULL, 0x56e9cbe52a30b6e4ULL,
	0x1e383fcee22f9be0ULL, 0x6156cf06d21a1299ULL,
	0xe0e5de5e82448912ULL, 0x9f8b2e96b271006bULL,
	0x71463609127ad31aULL, 0x0e28c6c1224f5a63ULL,
	0x8f9bd7997211c1e8ULL, 0xf0f5275142244891ULL,
	0xb824d37a8a3b6595ULL, 0xc74a23b2ba0eececULL,
	0x46f932eaea507767ULL, 0x3997c222da65fe1eULL,
	0xafba2586f2d042eeULL, 0xd0d4d54ec2e5cb97ULL,
	0x5167c41692bb501cULL, 0x2e0934dea28ed965ULL,
	0x66d8c0f56a91f461ULL, 0x19b6303d5aa47d18ULL,
	0x980521650afae693ULL, 0xe76bd1ad3acf6feaULL,
	0x09a6c9329ac4bc9bULL, 0x76c839faaaf135e2ULL,
	0xf77b28a2faafae69ULL, 0x8815d86aca9a2710ULL,
	0xc0c42c4102850a14ULL, 0xbfaadc8932b0836dULL,
	0x3e19cdd162ee18e6ULL, 0x41773d1952db919fULL,
	0x269b24ca6b12f26dULL, 0x59f5d4025b277b14ULL,
	0xd846c55a0b79e09fULL, 0xa72835923b4c69e6ULL,
	0xeff9c1b9f35344e2ULL, 0x90973171c366cd9bULL,
	0x1124202993385610ULL, 0x6e4ad0e1a30ddf69ULL,
	0x8087c87e03060c18ULL, 0xffe938b633338561ULL,
	0x7e5a29ee636d1eeaULL, 0x0134d92653589793ULL,
	0x49e52d0d9b47ba97ULL, 0x368bddc5ab7233eeULL,
	0xb738cc9dfb2ca865ULL, 0xc8563c55cb19211cULL,
	0x5e7bdbf1e3ac9decULL, 0x21152b39d3991495ULL,
	0xa0a63a6183c78f1eULL, 0xdfc8caa9b3f20667ULL,
	0x97193e827bed2b63ULL, 0xe877ce4a4bd8a21aULL,
	0x69c4df121b863991ULL, 0x16aa2fda2bb3b0e8ULL,
	0xf86737458bb86399ULL, 0x8709c78dbb8deae0ULL,
	0x06bad6d5ebd3716bULL, 0x79d4261ddbe6f812ULL,
	0x3105d23613f9d516ULL, 0x4e6b22fe23cc5c6fULL,
	0xcfd833a67392c7e4ULL, 0xb0b6c36e43a74e9dULL,
	0x9a6c9329ac4bc9b5ULL, 0xe50263e19c7e40ccULL,
	0x64b172b9cc20db47ULL, 0x1bdf8271fc15523eULL,
	0x530e765a340a7f3aULL, 0x2c608692043ff643ULL,
	0xadd397ca54616dc8ULL, 0xd2bd67026454e4b1ULL,
	0x3c707f9dc45f37c0ULL, 0x431e8f55f46abeb9ULL,
	0xc2ad9e0da4342532ULL, 0xbdc36ec59401ac4bULL,
	0xf5129aee5c1e814fULL, 0x8a7c6a266c2b0836ULL,
	0x0bcf7b7e3c7593bdULL, 0x74a18bb60c401ac4ULL,
	0xe28c6c1224f5a634ULL, 0x9de29cda14c02f4dULL,
	0x1c518d82449eb4c6ULL, 0x633f7d4a74ab3dbfULL,
	0x2bee8961bcb410bbULL, 0x548079a98c8199c2ULL,
	0xd53368f1dcdf0249ULL, 0xaa5d9839ecea8b30ULL,
	0x449080a64ce15841ULL, 0x3bfe706e7cd4d138ULL,
	0xba4d61362c8a4ab3ULL, 0xc52391fe1cbfc3caULL,
	0x8df265d5d4a0eeceULL, 0xf29c951de49567b7ULL,
	0x732f8445b4cbfc3cULL, 0x0c41748d84fe7545ULL,
	0x6bad6d5ebd3716b7ULL, 0x14c39d968d029fceULL,
	0x95708ccedd5c0445ULL, 0xea1e7c06ed698d3cULL,
	0xa2cf882d2576a038ULL, 0xdda178e515432941ULL,
	0x5c1269bd451db2caULL, 0x237c997575283bb3ULL,
	0xcdb181ead523e8c2ULL, 0xb2df7122e51661bbULL,
	0x336c607ab548fa30ULL, 0x4c0290b2857d7349ULL,
	0x04d364994d625e4dULL, 0x7bbd94517d57d734ULL,
	0xfa0e85092d094cbfULL, 0x856075c11d3cc5c6ULL,
	0x134d926535897936ULL, 0x6c2362ad05bcf04fULL,
	0xed9073f555e26bc4ULL, 0x92fe833d65d7e2bdULL,
	0xda2f7716adc8cfb9ULL, 0xa54187de9dfd46c0ULL,
	0x24f29686cda3dd4bULL, 0x5b9c664efd965432ULL,
	0xb5517ed15d9d8743ULL, 0xca3f8e196da80e3aULL,
	0x4b8c9f413df695b1ULL, 0x34e26f890dc31cc8ULL,
	0x7c339ba2c5dc31ccULL, 0x035d6b6af5e9b8b5ULL,
	0x82ee7a32a5b7233eULL, 0xfd808afa9582aa47ULL,
	0x4d364994d625e4daULL, 0x3258b95ce6106da3ULL,
	0xb3eba804b64ef628ULL, 0xcc8558cc867b7f51ULL,
	0x8454ace74e645255ULL, 0xfb3a5c2f7e51db2cULL,
	0x7a894d772e0f40a7ULL, 0x05e7bdbf1e3ac9deULL,
	0xeb2aa520be311aafULL, 0x944455e88e0493d6ULL,
	0x15f744b0de5a085dULL, 0x6a99b478ee6f8124ULL,
	0x224840532670ac20ULL, 0x5d26b09b16452559ULL,
	0xdc95a1c3461bbed2ULL, 0xa3fb510b762e37abULL,
	0x35d6b6af5e9b8b5bULL, 0x4ab846676eae0222ULL,
	0xcb0b573f3ef099a9ULL, 0xb465a7f70ec510d0ULL,
	0xfcb453dcc6da3dd4ULL, 0x83daa314f6efb4adULL,
	0x0269b24ca6b12f26ULL, 0x7d0742849684a65fULL,
	0x93ca5a1b368f752eULL, 0xeca4aad306bafc57ULL,
	0x6d17bb8b56e467dcULL, 0x12794b4366d1eea5ULL,
	0x5aa8bf68aecec3a1ULL, 0x25c64fa09efb4ad8ULL,
	0xa4755ef8cea5d153ULL, 0xdb1bae30fe90582aULL,
	0xbcf7b7e3c7593bd8ULL, 0xc399472bf76cb2a1ULL,
	0x422a5673a732292aULL, 0x3d44a6bb9707a053ULL,
	0x759552905f188d57ULL, 0x0afba2586f2d042eULL,
	0x8b48b3003f739fa5ULL, 0xf42643c80f4616dcULL,
	0x1aeb5b57af4dc5adULL, 0x6585ab9f9f784cd4ULL,
	0xe436bac7cf26d75fULL, 0x9b584a0fff135e26ULL,
	0xd389be24370c7322ULL, 0xace74eec0739fa5bULL,
	0x2d545fb4576761d0ULL, 0x523aaf7c6752e8a9ULL,
	0xc41748d84fe75459ULL, 0xbb79b8107fd2dd20ULL,
	0x3acaa9482f8c46abULL, 0x45a459801fb9cfd2ULL,
	0x0d75adabd7a6e2d6ULL, 0x721b5d63e7936bafULL,
	0xf3a84c3bb7cdf024ULL, 0x8cc6bcf387f8795dULL,
	0x620ba46c27f3aa2cULL, 0x1d6554a417c62355ULL,
	0x9cd645fc4798b8deULL, 0xe3b8b53477ad31a7ULL,
	0xab69411fbfb21ca3ULL, 0xd407b1d78f8795daULL,
	0x55b4a08fdfd90e51ULL, 0x2ada5047efec8728ULL,
};

uint16_t hb_crc16_t10dif(uint16_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len--)
		crc = crc << 8 ^ crc16_t10dif_table[(crc >> 8 ^ *p++) & 0xff];
	return crc;
}

/* @crc is a previous result (0 to start): the xors are inside */
uint64_t hb_crc64_nvme(uint64_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	crc = ~crc;
	while (len--)
		crc = crc >> 8 ^ crc64_nvme_table[(crc ^ *p++) & 0xff];
	return ~crc;
}

static void put_be(unsigned char *p, uint64_t v, unsigned int n)
{
	while (n--) {
		p[n] = v & 0xff;
		v >>= 8;
	}
}

static uint64_t get_be(const unsigned char *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

/*
 * Where a format puts things: the tuple's guard (2 or 8 bytes), then the
 * application tag (2), then the reference tag (4, or 6 with a 64b guard
 * and no storage tag), at @at in the LBA's metadata.
 */
struct pi_layout {
	size_t lba;		/* data bytes of an LBA */
	size_t at;		/* the tuple's offset in the metadata */
	size_t dstep, mstep;	/* from one LBA's data, metadata to the next */
	unsigned int gsz, rsz;	/* guard and reference tag bytes */
	uint64_t rmask;		/* the reference tag's bits */
};

static int pi_layout_of(const struct hb_pi_fmt *f, const struct hb_pi_io *io,
			struct pi_layout *l)
{
	size_t tuple;

	if (!f || !io || !io->data || (!f->ext && !io->md))
		return -EINVAL;
	tuple = f->guard64 ? 16 : 8;
	if (f->lba_shift < 9 || f->lba_shift > 16 || f->ms < tuple ||
	    f->type < 1 || f->type > 3)
		return -EINVAL;
	l->lba = (size_t)1 << f->lba_shift;
	l->at = f->pi_first ? 0 : f->ms - tuple;
	l->dstep = f->ext ? l->lba + f->ms : l->lba;
	l->mstep = f->ext ? l->dstep : f->ms;
	l->gsz = f->guard64 ? 8 : 2;
	l->rsz = f->guard64 ? 6 : 4;
	l->rmask = f->guard64 ? (1ULL << 48) - 1 : 0xffffffffULL;
	return 0;
}

/* the guard of one LBA: its data, then its metadata before the tuple */
static uint64_t pi_guard(const struct hb_pi_fmt *f, const struct pi_layout *l,
			 const unsigned char *d, const unsigned char *m)
{
	if (f->guard64)
		return hb_crc64_nvme(hb_crc64_nvme(0, d, l->lba), m, l->at);
	return hb_crc16_t10dif(hb_crc16_t10dif(0, d, l->lba), m, l->at);
}

/* types 1 and 2 carry a reference tag the host fills and checks */
static bool pi_has_ref(const struct hb_pi_fmt *f)
{
	return f->type != 3;
}

/*
 * The escape that turns an LBA's checks off: an application tag of all
 * ones, and for type 3 a reference tag of all ones with it.
 */
static bool pi_escaped(const struct hb_pi_fmt *f, const struct pi_layout *l,
		       const unsigned char *t)
{
	if (get_be(t + l->gsz, 2) != 0xffff)
		return false;
	return pi_has_ref(f) || get_be(t + l->gsz + 2, l->rsz) == l->rmask;
}

static int pi_mismatch(struct hb_pi_err *err, uint64_t lba,
		       unsigned int field, uint64_t want, uint64_t got)
{
	if (err) {
		err->lba = lba;
		err->field = field;
		err->want = want;
		err->got = got;
	}
	return -EILSEQ;
}

/* a tuple's fields, in their order in it */
static const unsigned int pi_fields[] = {
	HB_PI_GUARD, HB_PI_APPTAG, HB_PI_REFTAG
};

/* where @field sits in the tuple @t, and its bytes in *@len */
static unsigned char *pi_field_at(const struct pi_layout *l, unsigned char *t,
				  unsigned int field, unsigned int *len)
{
	if (field == HB_PI_GUARD) {
		*len = l->gsz;
		return t;
	}
	if (field == HB_PI_APPTAG) {
		*len = 2;
		return t + l->gsz;
	}
	*len = l->rsz;
	return t + l->gsz + 2;
}

/* @field of LBA @i (data @d, metadata @m) as the host computes it */
static uint64_t pi_field_want(const struct hb_pi_fmt *f,
			      const struct pi_layout *l,
			      const struct hb_pi_io *io, uint32_t i,
			      const unsigned char *d, const unsigned char *m,
			      unsigned int field)
{
	if (field == HB_PI_GUARD)
		return pi_guard(f, l, d, m);
	if (field == HB_PI_APPTAG)
		return io->app_tag;
	return (io->slba + i) & l->rmask;
}

/*
 * Each LBA's tuple, the fields @io checks: written (@fill), or compared
 * with what is there up to the first mismatch (the application tag
 * under its mask); a verify skips the escaped LBAs
 */
static int pi_walk(const struct hb_pi_fmt *f, const struct hb_pi_io *io,
		   bool fill, struct hb_pi_err *err)
{
	unsigned int checks, k, len;
	unsigned char *d, *m, *t, *at;
	struct pi_layout l;
	uint64_t want, got, mask;
	uint32_t i;

	if (pi_layout_of(f, io, &l))
		return -EINVAL;
	checks = io->checks & (pi_has_ref(f) ? ~0U : ~HB_PI_REFTAG);
	d = io->data;
	m = f->ext ? d + l.lba : io->md;
	for (i = 0; i < io->nlb; i++, d += l.dstep, m += l.mstep) {
		t = m + l.at;
		if (!fill && pi_escaped(f, &l, t))
			continue;
		for (k = 0; k < sizeof(pi_fields) / sizeof(pi_fields[0]); k++) {
			if (!(checks & pi_fields[k]))
				continue;
			at = pi_field_at(&l, t, pi_fields[k], &len);
			want = pi_field_want(f, &l, io, i, d, m, pi_fields[k]);
			if (fill) {
				put_be(at, want, len);
				continue;
			}
			mask = pi_fields[k] == HB_PI_APPTAG ? io->app_mask :
							      ~0ULL;
			got = get_be(at, len);
			if ((want ^ got) & mask)
				return pi_mismatch(err, io->slba + i,
						   pi_fields[k], want & mask,
						   got & mask);
		}
	}
	return 0;
}

int hb_pi_fill(const struct hb_pi_fmt *f, const struct hb_pi_io *io)
{
	return pi_walk(f, io, true, NULL);
}

int hb_pi_verify(const struct hb_pi_fmt *f, const struct hb_pi_io *io,
		 struct hb_pi_err *err)
{
	return pi_walk(f, io, false, err);
}
