package openai

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"net/http"

	"golang.org/x/image/draw"

	"github.com/flowreader/flowreader/llm"
)

// errImage: an image part cannot be sent (unknown format, undecodable, or
// too many pixels to decode safely).
var errImage = errors.New("openai: unusable image")

// defaultMaxImageSide is the long side images are downscaled to when
// Config.MaxImageSide is 0.
const defaultMaxImageSide = 1600

// maxPixels bounds the images decoded for downscaling (decompression bombs).
const maxPixels = 100 << 20

// prepareImage returns the bytes and MIME type to send: the image itself,
// or a downscaled re-encoding when its long side exceeds maxSide (0 means
// defaultMaxImageSide, negative never). A missing MIME type is sniffed.
func prepareImage(img *llm.Image, maxSide int) ([]byte, string, error) {
	mime := img.MIME
	if mime == "" {
		mime = http.DetectContentType(img.Data)
	}
	if mime == "image/jpg" {
		mime = "image/jpeg"
	}
	if mime != "image/png" && mime != "image/jpeg" {
		return nil, "", fmt.Errorf("%w: MIME type %q (want image/png or image/jpeg)", errImage, mime)
	}
	if maxSide < 0 {
		return img.Data, mime, nil
	}
	if maxSide == 0 {
		maxSide = defaultMaxImageSide
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil {
		return nil, "", fmt.Errorf("%w: %v", errImage, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, "", fmt.Errorf("%w: %d×%d pixels", errImage, cfg.Width, cfg.Height)
	}
	if max(cfg.Width, cfg.Height) <= maxSide {
		return img.Data, mime, nil
	}
	if int64(cfg.Width)*int64(cfg.Height) > maxPixels {
		return nil, "", fmt.Errorf("%w: %d×%d pixels is too many to decode", errImage, cfg.Width, cfg.Height)
	}
	src, _, err := image.Decode(bytes.NewReader(img.Data))
	if err != nil {
		return nil, "", fmt.Errorf("%w: %v", errImage, err)
	}
	w, h := scaled(cfg.Width, cfg.Height, maxSide)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
	var buf bytes.Buffer
	if format == "jpeg" {
		err = jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 90})
		mime = "image/jpeg"
	} else {
		err = png.Encode(&buf, dst)
		mime = "image/png"
	}
	if err != nil {
		return nil, "", fmt.Errorf("%w: re-encoding: %v", errImage, err)
	}
	return buf.Bytes(), mime, nil
}

// scaled fits w×h into a maxSide square keeping the aspect ratio.
func scaled(w, h, maxSide int) (int, int) {
	if w >= h {
		return maxSide, max(1, int(int64(h)*int64(maxSide)/int64(w)))
	}
	return max(1, int(int64(w)*int64(maxSide)/int64(h))), maxSide
}
