package main

import (
	"bytes"
	"testing"
)

// PDUs as seed 002 lays them out: a type octet, then two names of 10
// octets left-padded with zeros, or a length-prefixed message.
func TestPDULayout(t *testing.T) {
	for _, c := range []struct {
		pdu  PDU
		want []byte
	}{
		{PDU{Type: pduJoin, Partner: "TestBot1", Conference: "Conf"}, append(append([]byte{1, 0, 0}, "TestBot1"...), append([]byte{0, 0, 0, 0, 0, 0}, "Conf"...)...)},
		{PDU{Type: pduLeave, Partner: "ConfProt", Conference: "Conference"}, append(append([]byte{2, 0, 0}, "ConfProt"...), "Conference"...)},
		{PDU{Type: pduData, Data: "hello"}, append([]byte{4, 5}, "hello"...)},
		{PDU{Type: pduData}, []byte{4, 0}},
	} {
		got, err := c.pdu.Encode()
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("%+v: % x, %v; want % x", c.pdu, got, err, c.want)
			continue
		}
		back, err := DecodePDU(got)
		if err != nil || back != c.pdu {
			t.Errorf("% x decodes to %+v, %v", got, back, err)
		}
	}
	if _, err := (PDU{Type: pduJoin, Partner: "ElevenChars"}).Encode(); err == nil {
		t.Error("an 11-character name encoded")
	}
	for _, bad := range [][]byte{nil, {9}, {1, 0}, {4, 3, 'a'}, {4}} {
		if _, err := DecodePDU(bad); err == nil {
			t.Errorf("% x decoded", bad)
		}
	}
}

// DecodePDU never panics, and what it decodes encodes back to the same
// octets (names without leading zeros).
func FuzzDecodePDU(f *testing.F) {
	f.Add([]byte{4, 5, 'h', 'e', 'l', 'l', 'o'})
	f.Add(append([]byte{1}, make([]byte, 20)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodePDU(b)
		if err != nil {
			return
		}
		again, err := p.Encode()
		if err != nil {
			t.Fatalf("%+v decoded from % x does not encode: %v", p, b, err)
		}
		if p2, err := DecodePDU(again); err != nil || p2 != p {
			t.Fatalf("round trip: %+v -> % x -> %+v, %v", p, again, p2, err)
		}
	})
}
