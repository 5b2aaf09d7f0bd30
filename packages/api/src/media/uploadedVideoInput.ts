/**
 * The demuxers an uploaded video is read with: the containers videos are uploaded in. Not the HLS
 * and concat demuxers, which fetch what a file names (any file of the server's disk, any address of
 * its network when the upload is read through a URL), and not image sequences. Goes before `-i`.
 */
export const UPLOADED_VIDEO_INPUT = ['-format_whitelist', 'mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,avi,mpegts,ogg,flv,asf,mpeg,mxf'];
