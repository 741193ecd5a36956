package main

import (
	"bytes"
	"errors"
	"fmt"
)

// PDU types (seed 002, section III.A).
const (
	pduJoin   = 0x01
	pduLeave  = 0x02
	pduAnswer = 0x03
	pduData   = 0x04
)

// nameLen is the width of a name field: names are at most 10 ASCII
// characters, left-padded with zero octets, without a terminator.
const nameLen = 10

// PDU is a decoded protocol data unit.
type PDU struct {
	Type       byte
	Partner    string // Join, Leave, Answer
	Conference string // Join, Leave, Answer
	Data       string // Data
}

// encodeName left-pads a name with zeros to nameLen octets.
func encodeName(s string) ([]byte, error) {
	if len(s) > nameLen {
		return nil, fmt.Errorf("name %q is longer than %d characters", s, nameLen)
	}
	b := make([]byte, nameLen)
	copy(b[nameLen-len(s):], s)
	return b, nil
}

func decodeName(b []byte) string { return string(bytes.TrimLeft(b, "\x00")) }

// Encode writes the PDU in its binary form.
func (p PDU) Encode() ([]byte, error) {
	switch p.Type {
	case pduJoin, pduLeave, pduAnswer:
		partner, err := encodeName(p.Partner)
		if err != nil {
			return nil, err
		}
		conf, err := encodeName(p.Conference)
		if err != nil {
			return nil, err
		}
		return append(append([]byte{p.Type}, partner...), conf...), nil
	case pduData:
		if len(p.Data) > 255 {
			return nil, fmt.Errorf("a message is at most 255 octets, not %d", len(p.Data))
		}
		return append([]byte{pduData, byte(len(p.Data))}, p.Data...), nil
	}
	return nil, fmt.Errorf("unknown PDU type %d", p.Type)
}

// DecodePDU reads a PDU; an error for anything malformed.
func DecodePDU(b []byte) (PDU, error) {
	if len(b) == 0 {
		return PDU{}, errors.New("empty PDU")
	}
	switch t := b[0]; t {
	case pduJoin, pduLeave, pduAnswer:
		if len(b) != 1+2*nameLen {
			return PDU{}, fmt.Errorf("PDU type %d: %d octets, want %d", t, len(b), 1+2*nameLen)
		}
		return PDU{Type: t, Partner: decodeName(b[1 : 1+nameLen]), Conference: decodeName(b[1+nameLen:])}, nil
	case pduData:
		if len(b) < 2 || len(b) != 2+int(b[1]) {
			return PDU{}, fmt.Errorf("data PDU: %d octets for length %d", len(b), b[min(len(b)-1, 1)])
		}
		return PDU{Type: pduData, Data: string(b[2:])}, nil
	default:
		return PDU{}, fmt.Errorf("unknown PDU type %d", t)
	}
}
